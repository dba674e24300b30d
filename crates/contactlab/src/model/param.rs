//! Parameter keys: a path to one number of a model document, so that any analysis can vary
//! any parameter of any model (continuation, parameter studies) without a list of keys per
//! kind.
//!
//! A key is dot-separated segments, each a table key followed by zero or more selectors in
//! brackets; a selector picks elements of an array: an index (`0`), the element whose `name`
//! key is the given text (`[swing foot]`), the elements of several names (`[stance shank|swing
//! shank]`, each must exist), or every element (`[*]`). Examples:
//! `slope_deg`, `gravity`, `body[hip].mass`, `contact[*].mu`, `limit[knee stop].e`,
//! `spring[0].stiffness`, `body[stance].com[1]`. The key must exist in the document (a
//! continuation starts from the file's model) and name numbers; the changed document is read
//! again by its kind's reader, so every value is validated as in a file.

use crate::model::ModelDoc;
use crate::Error;

/// One selector of a segment.
#[derive(Debug, Clone, PartialEq)]
enum Selector {
    Index(usize),
    /// One or more names (`[a|b]`): the elements with those `name`s, each of which must exist.
    Names(Vec<String>),
    All,
}

/// A parsed parameter key (module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct ParamKey {
    text: String,
    segments: Vec<(String, Vec<Selector>)>,
}

impl std::fmt::Display for ParamKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

const WHAT: &str = "param";

impl ParamKey {
    /// Parses `text` (module docs).
    pub fn parse(text: &str) -> Result<Self, Error> {
        let bad = |why: &str| Error::argument(WHAT, format!("'{text}': {why} (e.g. slope_deg, contact[*].mu)"));
        let mut segments = vec![];
        let mut rest = text.trim();
        loop {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            let name = rest[..end].trim();
            if name.is_empty() {
                return Err(bad("a segment has no key"));
            }
            if name.contains(']') {
                return Err(bad("a ']' without '['"));
            }
            rest = &rest[end..];
            let mut sel = vec![];
            while let Some(r) = rest.strip_prefix('[') {
                let close = r.find(']').ok_or_else(|| bad("a '[' is not closed"))?;
                let s = r[..close].trim();
                sel.push(match s {
                    "" => return Err(bad("an empty selector []")),
                    "*" => Selector::All,
                    _ => match s.parse::<usize>() {
                        Ok(i) => Selector::Index(i),
                        Err(_) => {
                            let names: Vec<String> = s.split('|').map(|n| n.trim().to_string()).collect();
                            if names.iter().any(String::is_empty) {
                                return Err(bad("an empty name in a selector [a|b]"));
                            }
                            Selector::Names(names)
                        }
                    },
                });
                rest = &r[close + 1..];
            }
            segments.push((name.to_string(), sel));
            if rest.is_empty() {
                break;
            }
            rest = rest.strip_prefix('.').ok_or_else(|| bad("expected '.' between segments"))?;
        }
        Ok(Self { text: text.trim().to_string(), segments })
    }

    /// The key as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the key names an angle in degrees (its last segment ends in `_deg`).
    pub fn is_degrees(&self) -> bool {
        self.segments.last().is_some_and(|s| s.0.ends_with("_deg"))
    }
}

/// Every number the key names in `root`, mutably; an error names the first segment that does
/// not match.
fn select<'a>(doc: &str, key: &ParamKey, root: &'a mut toml::Table) -> Result<Vec<&'a mut toml::Value>, Error> {
    let miss = |at: &str, why: String| Error::input(doc, key.as_str(), format!("{why} (at '{at}')"));
    let pick = |name: &str, sels: &[Selector], mut vals: Vec<&'a mut toml::Value>| {
        for s in sels {
            let mut picked = vec![];
            for v in vals {
                let toml::Value::Array(a) = v else {
                    return Err(miss(name, "a selector [..] needs an array".into()));
                };
                let n = a.len();
                match s {
                    Selector::All => picked.extend(a.iter_mut()),
                    Selector::Index(i) => {
                        picked.push(a.get_mut(*i).ok_or_else(|| miss(name, format!("index {i} of {n} elements")))?)
                    }
                    Selector::Names(wants) => {
                        let names: Vec<String> = a
                            .iter()
                            .filter_map(|e| e.get("name").and_then(|x| x.as_str()).map(str::to_string))
                            .collect();
                        if let Some(want) = wants.iter().find(|w| !names.contains(w)) {
                            return Err(miss(
                                name,
                                format!("no element named '{want}'; the names are: {}", names.join(", ")),
                            ));
                        }
                        picked.extend(a.iter_mut().filter(|e| {
                            e.get("name").and_then(|x| x.as_str()).is_some_and(|n| wants.iter().any(|w| w == n))
                        }));
                    }
                }
            }
            vals = picked;
        }
        Ok(vals)
    };
    let (name0, sels0) = &key.segments[0];
    let keys: Vec<String> = root.keys().cloned().collect();
    let first = root
        .get_mut(name0)
        .ok_or_else(|| miss(name0, format!("no such key; the document has: {}", keys.join(", "))))?;
    let mut current = pick(name0, sels0, vec![first])?;
    for (name, sels) in &key.segments[1..] {
        let mut next: Vec<&'a mut toml::Value> = vec![];
        for t in current {
            let toml::Value::Table(t) = t else {
                return Err(miss(name, "not a table".into()));
            };
            let keys: Vec<String> = t.keys().cloned().collect();
            let v = t
                .get_mut(name)
                .ok_or_else(|| miss(name, format!("no such key; this table has: {}", keys.join(", "))))?;
            next.push(v);
        }
        current = pick(name, sels, next)?;
    }
    if current.is_empty() {
        return Err(Error::input(doc, key.as_str(), "names no value (an empty array)"));
    }
    if let Some(v) = current.iter().find(|v| !matches!(v, toml::Value::Float(_) | toml::Value::Integer(_))) {
        return Err(Error::input(doc, key.as_str(), format!("names a {}, not a number", v.type_str())));
    }
    Ok(current)
}

fn number(v: &toml::Value) -> f64 {
    match v {
        toml::Value::Float(x) => *x,
        toml::Value::Integer(i) => *i as f64,
        _ => f64::NAN,
    }
}

impl ModelDoc {
    /// The number `key` names (with `[*]`, the values must agree).
    pub fn param(&self, key: &ParamKey) -> Result<f64, Error> {
        let mut table = self.table.clone();
        let vals: Vec<f64> = select(&self.file, key, &mut table)?.into_iter().map(|v| number(v)).collect();
        if vals.iter().any(|&v| v != vals[0]) {
            return Err(Error::input(&self.file, key.as_str(), format!("names several different values {vals:?}")));
        }
        Ok(vals[0])
    }

    /// The document with every number `key` names set to `value`.
    pub fn with_param(&self, key: &ParamKey, value: f64) -> Result<ModelDoc, Error> {
        if !value.is_finite() {
            return Err(Error::argument(WHAT, format!("{key} = {value} is not finite")));
        }
        let mut out = self.clone();
        for v in select(&self.file, key, &mut out.table)? {
            // An integer stays an integer where the value is one (a count read as an integer).
            *v = match v {
                toml::Value::Integer(_) if value.fract() == 0.0 && value.abs() < 9e15 => {
                    toml::Value::Integer(value as i64)
                }
                _ => toml::Value::Float(value),
            };
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "kind = \"multibody\"\nslope_deg = 1\n[[contact]]\nname = \"a b\"\nmu = 0.7\n\
                       [[contact]]\nname = \"c\"\nmu = 0.7\n[[body]]\nname = \"leg\"\ncom = [0.0, -0.8]\n";

    #[test]
    fn keys_select_numbers_and_set_them() {
        let d = ModelDoc::parse("m.toml", DOC, false).unwrap();
        let k = |s: &str| ParamKey::parse(s).unwrap();
        assert_eq!(d.param(&k("slope_deg")).unwrap(), 1.0);
        assert!(k("slope_deg").is_degrees());
        assert_eq!(d.param(&k("contact[a b].mu")).unwrap(), 0.7);
        assert_eq!(d.param(&k("body[leg].com[1]")).unwrap(), -0.8);
        let e = d.with_param(&k("contact[*].mu"), 0.3).unwrap();
        assert_eq!(e.param(&k("contact[0].mu")).unwrap(), 0.3);
        assert_eq!(e.param(&k("contact[c].mu")).unwrap(), 0.3);
        // Several names: both elements, in the document's order; each name must exist.
        let e = d.with_param(&k("contact[c|a b].mu"), 0.4).unwrap();
        assert_eq!((e.param(&k("contact[0].mu")).unwrap(), e.param(&k("contact[1].mu")).unwrap()), (0.4, 0.4));
        let err = d.param(&k("contact[c|x].mu")).unwrap_err().to_string();
        assert!(err.contains("no element named 'x'"), "{err}");
        assert!(ParamKey::parse("contact[a||b].mu").is_err());
        let e = d.with_param(&k("contact[1].mu"), 0.2).unwrap();
        assert!(e.param(&k("contact[*].mu")).unwrap_err().to_string().contains("several different"));
        // Errors name the key, the segment and what exists.
        let err = d.param(&k("slope")).unwrap_err().to_string();
        assert!(err.contains("slope_deg") && err.contains("no such key"), "{err}");
        let err = d.param(&k("contact[x].mu")).unwrap_err().to_string();
        assert!(err.contains("a b, c"), "{err}");
        let err = d.param(&k("contact[5].mu")).unwrap_err().to_string();
        assert!(err.contains("index 5 of 2"), "{err}");
        let err = d.param(&k("kind")).unwrap_err().to_string();
        assert!(err.contains("not a number"), "{err}");
        assert!(d.with_param(&k("slope_deg"), f64::NAN).is_err());
        for bad in ["", "a..b", "a[", "a[]", "a]b", ".a"] {
            assert!(ParamKey::parse(bad).is_err(), "{bad}");
        }
    }
}
