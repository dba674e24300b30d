//! A robot dropped event-driven, for profiling: `humanoid_drop [T] [rtol] [MJCF] [stops]`, by
//! default Gymnasium's humanoid for 2 s with its joints free (the bench's
//! `event_driven_joints_free`): the simulated time against the wall clock, the steps and
//! events per twentieth of the run, and the events by kind.
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: f64| args.get(i).map_or(d, |a| a.parse().expect("a number"));
    let t_max = num(0, 2.0);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/robots/mujoco");
    let file = root.join(args.get(2).map_or("humanoid.xml", |s| s.as_str()));
    let hm = contactlab::api::open(&file, None).unwrap().spatial().expect("a robot in 3-D").clone();
    let scene = hm.scene(None, 0.0);
    let s = contactlab::spatial::events::EventSettings {
        t_max,
        rtol: num(1, 1e-10),
        stops: args.get(3).is_some_and(|a| a == "stops"),
        ..Default::default()
    };
    let t0 = std::time::Instant::now();
    let mut last = 0.0;
    let mut marks = vec![];
    let mut steps = [0usize; 20];
    let mut prog = |t: f64| {
        steps[((t / t_max * 20.0) as usize).min(19)] += 1;
        if t >= last + 0.1 * t_max {
            last = t;
            marks.push((t, t0.elapsed().as_secs_f64()));
        }
    };
    let v0 = vec![0.0; scene.tree.nv()];
    let r = contactlab::spatial::events::simulate_events_with(&scene, hm.q0.as_slice(), &v0, &s, &mut prog).unwrap();
    println!(
        "{:.3} s wall, {:?}, steps {}, events {}",
        t0.elapsed().as_secs_f64(),
        r.termination,
        r.steps,
        r.events.len()
    );
    for (t, w) in marks {
        println!("  t = {t:.3} at {w:.3} s");
    }
    for (i, n) in steps.iter().enumerate() {
        let (a, b) = (i as f64 * t_max / 20.0, (i + 1) as f64 * t_max / 20.0);
        let ev = r.events.iter().filter(|e| e.t >= a && e.t < b).count();
        println!("  [{a:.3}, {b:.3}): {n} steps, {ev} events");
    }
    let mut kinds = std::collections::BTreeMap::new();
    for e in &r.events {
        *kinds.entry(format!("{:?}", e.kind)).or_insert(0) += 1;
    }
    println!("{kinds:?}");
    if std::env::var_os("EVENTS").is_some() {
        for e in r.events.iter().rev().take(12).rev() {
            println!("  {e:?}");
        }
    }
}
