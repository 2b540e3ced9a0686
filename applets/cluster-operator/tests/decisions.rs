//! Table tests of the sweep's pure decision (decide::sweep): budget, leaders
//! one at a time, machines down for any reason, reclaim, stall, the schema
//! caveat, the newly elected copy's hold, and judgement on this program's
//! clock only.

use std::collections::BTreeMap;
use std::time::Duration;

use jiff::Timestamp;
use liken_api::condition::Time;
use liken_api::{Condition, ConditionStatus, Phase, condition};
use liken_cluster_operator::decide::{self, Observation, Timing};
use liken_cluster_operator::machine::MachineView;
use liken_documents::Cluster;
use liken_documents::cluster::{ClusterPhase, ClusterSpec, RebootTurn};

const T0: i64 = 1_780_000_000;

fn at(s: i64) -> Timestamp {
    Timestamp::from_second(T0 + s).unwrap()
}

fn cluster(max: i64, leaders: &[&str], turns: Vec<RebootTurn>) -> Cluster {
    let mut spec = ClusterSpec::default();
    spec.disruption.max_unavailable = max;
    spec.leaders = leaders.iter().map(|s| s.to_string()).collect();
    let mut c = Cluster::new("fleet", spec);
    c.metadata.generation = Some(3);
    c.status = Some(liken_documents::ClusterStatus {
        reboot_turns: turns,
        ..Default::default()
    });
    c
}

fn machine(name: &str, phase: Phase) -> MachineView {
    MachineView {
        name: name.into(),
        uid: format!("uid-{name}"),
        resource_version: "100".into(),
        generation: 1,
        phase: Some(phase),
        role: None,
        conditions: vec![Condition::new(
            "Ready",
            if phase == Phase::Ready {
                ConditionStatus::True
            } else {
                ConditionStatus::False
            },
            "Reconciled",
            "",
            Time::new(at(-100)),
        )],
    }
}

fn waiting(name: &str) -> MachineView {
    let mut m = machine(name, Phase::UpdatePending);
    m.conditions.push(Condition::new(
        "VersionConverged",
        ConditionStatus::False,
        "AwaitingTurn",
        "",
        Time::new(at(-100)),
    ));
    m
}

fn granted(name: &str) -> MachineView {
    let mut m = waiting(name);
    condition::set(
        &mut m.conditions,
        Condition::new(
            "RebootApproved",
            ConditionStatus::True,
            "RebootTurnGranted",
            "",
            Time::new(at(-50)),
        ),
    );
    m.resource_version = "101".into();
    m
}

fn turn(name: &str, rv: &str, since: i64) -> RebootTurn {
    RebootTurn {
        machine: name.into(),
        machine_resource_version: rv.into(),
        since: Time::new(at(since)),
    }
}

/// Every machine heard at `now - 1`.
fn all_heard(ms: &[MachineView], now: i64) -> BTreeMap<String, Timestamp> {
    ms.iter().map(|m| (m.name.clone(), at(now - 1))).collect()
}

fn obs<'a>(
    c: &'a Cluster,
    ms: &'a [MachineView],
    heard: &'a BTreeMap<String, Timestamp>,
    now: i64,
) -> Observation<'a> {
    Observation {
        cluster: c,
        machines: ms,
        heard,
        watching_since: at(-1000),
        available: None,
        template_lags: false,
        now: at(now),
        timing: Timing {
            stale_after: Duration::from_secs(40),
            stall_after: Duration::from_secs(600),
        },
    }
}

fn ledger(p: &decide::Plan) -> Vec<String> {
    p.status
        .reboot_turns
        .iter()
        .map(|t| t.machine.clone())
        .collect()
}

fn granted_names(p: &decide::Plan) -> Vec<String> {
    p.grants.iter().map(|g| g.machine.clone()).collect()
}

fn progressing(p: &decide::Plan) -> Condition {
    condition::find(&p.status.conditions, "Progressing")
        .unwrap()
        .clone()
}

#[test]
fn budget_bounds_new_turns_and_every_grant_is_recorded_first() {
    for (max, expect) in [(1, 1), (2, 2), (3, 3), (10, 5)] {
        let c = cluster(max, &[], vec![]);
        let ms: Vec<_> = (0..5).map(|i| waiting(&format!("f{i}"))).collect();
        let heard = all_heard(&ms, 0);
        let p = decide::sweep(&obs(&c, &ms, &heard, 0));
        assert_eq!(p.status.reboot_turns.len(), expect, "max {max}");
        assert_eq!(granted_names(&p), ledger(&p), "each grant has its entry");
        assert!(p.write_status);
    }
}

#[test]
fn machines_down_for_any_reason_count_against_the_budget() {
    for down in [
        Phase::Lost,
        Phase::Booting,
        Phase::Degraded,
        Phase::Updating,
        Phase::Unknown,
    ] {
        let c = cluster(2, &[], vec![]);
        let ms = vec![machine("d", down), waiting("w1"), waiting("w2")];
        let heard = all_heard(&ms, 0);
        let p = decide::sweep(&obs(&c, &ms, &heard, 0));
        assert_eq!(ledger(&p), vec!["w1"], "{down:?} takes one of two slots");
    }
    // A silent machine (stale heartbeat) is down whatever it reports.
    let c = cluster(1, &[], vec![]);
    let ms = vec![machine("silent", Phase::Ready), waiting("w")];
    let mut heard = all_heard(&ms, 0);
    heard.insert("silent".into(), at(-41));
    let p = decide::sweep(&obs(&c, &ms, &heard, 0));
    assert!(ledger(&p).is_empty());
    assert_eq!(p.lost.len(), 1);
}

#[test]
fn leaders_go_one_at_a_time_and_before_followers() {
    let c = cluster(3, &["l1", "l2", "l3"], vec![]);
    let ms = vec![
        waiting("f1"),
        waiting("l2"),
        waiting("l1"),
        waiting("l3"),
        waiting("f2"),
    ];
    let heard = all_heard(&ms, 0);
    let p = decide::sweep(&obs(&c, &ms, &heard, 0));
    assert_eq!(
        ledger(&p),
        vec!["l1"],
        "one leader, and no follower while leaders wait"
    );

    // l1 holds its turn: no second leader, whatever the budget.
    let c = cluster(3, &["l1", "l2", "l3"], vec![turn("l1", "101", -5)]);
    let ms = vec![granted("l1"), waiting("l2"), waiting("l3"), waiting("f1")];
    let heard = all_heard(&ms, 0);
    let p = decide::sweep(&obs(&c, &ms, &heard, 0));
    assert_eq!(ledger(&p), vec!["l1"]);
    assert!(p.grants.is_empty());

    // A leader down for another reason also blocks the other leaders.
    let c = cluster(3, &["l1", "l2"], vec![]);
    let ms = vec![machine("l1", Phase::Lost), waiting("l2")];
    let heard = all_heard(&ms, 0);
    let p = decide::sweep(&obs(&c, &ms, &heard, 0));
    assert!(ledger(&p).is_empty());

    // Leaders done: followers go, up to the budget.
    let c = cluster(3, &["l1"], vec![]);
    let ms = vec![
        machine("l1", Phase::Ready),
        waiting("f1"),
        waiting("f2"),
        waiting("f3"),
        waiting("f4"),
    ];
    let heard = all_heard(&ms, 0);
    let p = decide::sweep(&obs(&c, &ms, &heard, 0));
    assert_eq!(ledger(&p), vec!["f1", "f2", "f3"]);
}

#[test]
fn followers_wait_while_the_operator_template_lags_but_leaders_go() {
    let c = cluster(2, &["l1"], vec![]);
    let ms = vec![machine("l1", Phase::Ready), waiting("f1")];
    let heard = all_heard(&ms, 0);
    let mut o = obs(&c, &ms, &heard, 0);
    o.template_lags = true;
    assert!(ledger(&decide::sweep(&o)).is_empty());
    let ms = vec![waiting("l1"), waiting("f1")];
    let heard = all_heard(&ms, 0);
    let mut o = obs(&c, &ms, &heard, 0);
    o.template_lags = true;
    assert_eq!(ledger(&decide::sweep(&o)), vec!["l1"]);
}

#[test]
fn spent_turns_are_reclaimed_and_unspent_ones_kept() {
    let turns = vec![
        turn("gone", "7", -10),       // Machine deleted
        turn("back", "100", -10),     // no grant, version moved on (recorded at 100, now 200)
        turn("holding", "101", -10),  // holds its grant
        turn("recorded", "100", -10), // recorded, grant not yet written
    ];
    let c = cluster(5, &[], turns);
    let mut back = machine("back", Phase::Ready);
    back.resource_version = "200".into();
    let ms = vec![back, granted("holding"), waiting("recorded")];
    let heard = all_heard(&ms, 0);
    let p = decide::sweep(&obs(&c, &ms, &heard, 0));
    assert_eq!(p.reclaimed, vec!["gone", "back"]);
    assert_eq!(ledger(&p), vec!["holding", "recorded"]);
    // The recorded entry's grant is written now (a former copy stopped
    // between the two writes).
    assert_eq!(granted_names(&p), vec!["recorded"]);
    assert_eq!(p.grants[0].resource_version, "100");
}

#[test]
fn a_recorded_turn_on_a_lost_machine_is_not_granted() {
    let c = cluster(2, &[], vec![turn("m", "100", -10)]);
    let ms = vec![waiting("m")];
    let mut heard = BTreeMap::new();
    heard.insert("m".to_string(), at(-60));
    let p = decide::sweep(&obs(&c, &ms, &heard, 0));
    assert!(p.grants.is_empty());
    assert_eq!(p.lost.len(), 1);
}

#[test]
fn a_turn_out_too_long_stalls_the_rollout() {
    let c = cluster(3, &[], vec![turn("slow", "101", -601)]);
    let ms = vec![granted("slow"), waiting("w1"), waiting("w2")];
    let heard = all_heard(&ms, 0);
    let p = decide::sweep(&obs(&c, &ms, &heard, 0));
    assert_eq!(ledger(&p), vec!["slow"], "no new turn while stalled");
    let prog = progressing(&p);
    assert_eq!(prog.status, ConditionStatus::False);
    assert_eq!(prog.reason, "RolloutStalled");
    assert!(prog.message.contains("slow"), "{}", prog.message);
    // Under the bound it is still rolling out, and grants continue.
    let c = cluster(3, &[], vec![turn("slow", "101", -599)]);
    let p = decide::sweep(&obs(&c, &ms, &heard, 0));
    assert_eq!(progressing(&p).reason, "RollingOut");
    assert_eq!(ledger(&p), vec!["slow", "w1", "w2"]);
}

#[test]
fn a_newly_elected_copy_grants_nothing_until_it_has_watched_for_the_staleness_window() {
    let c = cluster(1, &[], vec![turn("m", "100", -5)]);
    let ms = vec![waiting("m"), waiting("w")];
    let heard = all_heard(&ms, 0);
    let mut o = obs(&c, &ms, &heard, 0);
    o.watching_since = at(-39);
    let p = decide::sweep(&o);
    assert_eq!(ledger(&p), vec!["m"], "no new entry while warming");
    assert_eq!(
        granted_names(&p),
        vec!["m"],
        "an entry already recorded is still granted"
    );
    let c = cluster(2, &[], vec![]);
    let mut o = obs(&c, &ms, &heard, 0);
    o.watching_since = at(-39);
    let p = decide::sweep(&o);
    assert!(ledger(&p).is_empty());
    assert!(progressing(&p).message.contains("watched the heartbeats"));
    o.watching_since = at(-40);
    assert_eq!(ledger(&decide::sweep(&o)), vec!["m", "w"]);
}

#[test]
fn lost_is_judged_on_this_programs_clock_only() {
    let c = cluster(1, &[], vec![]);
    let ms = vec![machine("skewed", Phase::Ready)];
    // The machine's renewTime is an hour off, but the sighting map holds
    // only when this program saw it change: 5 s ago.
    let mut heard = BTreeMap::new();
    heard.insert("skewed".to_string(), at(-5));
    let p = decide::sweep(&obs(&c, &ms, &heard, 0));
    assert!(p.lost.is_empty());
    assert_eq!(p.status.phase, Some(ClusterPhase::Ready));
    // 39 s of silence is not yet Lost; 40 s is.
    heard.insert("skewed".to_string(), at(-39));
    assert!(decide::sweep(&obs(&c, &ms, &heard, 0)).lost.is_empty());
    heard.insert("skewed".to_string(), at(-40));
    let p = decide::sweep(&obs(&c, &ms, &heard, 0));
    assert_eq!(p.lost.len(), 1);
    let ready = condition::find(&p.lost[0].conditions, "Ready").unwrap();
    assert_eq!(ready.status, ConditionStatus::Unknown);
    assert_eq!(ready.reason, "HeartbeatStale");
    assert!(p.lost[0].message.contains(&Time::new(at(-40)).to_string()));
    assert_eq!(p.status.phase, Some(ClusterPhase::Degraded));
}

#[test]
fn a_machine_already_lost_is_not_marked_again_and_a_never_seen_lease_counts_from_the_watch() {
    let c = cluster(1, &[], vec![]);
    let ms = vec![machine("m", Phase::Lost)];
    let heard = BTreeMap::new();
    let p = decide::sweep(&obs(&c, &ms, &heard, 0));
    assert!(p.lost.is_empty());
    let ms = vec![machine("m", Phase::Ready)];
    let mut o = obs(&c, &ms, &heard, 0);
    o.watching_since = at(-10);
    assert!(decide::sweep(&o).lost.is_empty());
    o.watching_since = at(-40);
    assert!(
        decide::sweep(&o).lost[0]
            .message
            .contains("no heartbeat lease renewal")
    );
}

#[test]
fn a_settled_fleet_plans_no_write() {
    let c = cluster(1, &[], vec![]);
    let ms = vec![machine("a", Phase::Ready), machine("b", Phase::Ready)];
    let heard = all_heard(&ms, 0);
    let first = decide::sweep(&obs(&c, &ms, &heard, 0));
    assert!(first.write_status);
    let mut settled = c.clone();
    settled.status = Some(first.status.clone());
    let heard = all_heard(&ms, 30);
    let again = decide::sweep(&obs(&settled, &ms, &heard, 30));
    assert!(!again.write_status, "{:#?}", again.status);
    let counts = again.status.machines.clone().unwrap();
    assert_eq!(
        (counts.ready, counts.total, counts.summary.as_str()),
        (2, 2, "2/2")
    );
    let ready = condition::find(&again.status.conditions, "MachinesReady").unwrap();
    assert_eq!(ready.reason, "AllMachinesReady");
    assert_eq!(progressing(&again).reason, "RolloutComplete");
}

#[test]
fn the_headcount_names_machines_not_ready() {
    let c = cluster(1, &[], vec![]);
    let ms = vec![
        machine("a", Phase::Ready),
        waiting("b"),
        machine("c", Phase::Downloading),
    ];
    let heard = all_heard(&ms, 0);
    let p = decide::sweep(&obs(&c, &ms, &heard, 0));
    let ready = condition::find(&p.status.conditions, "MachinesReady").unwrap();
    assert_eq!(ready.reason, "MachinesUpdating");
    assert_eq!(ready.message, "1/3 machines ready; mid-transition: b, c");
    assert_eq!(p.status.phase, Some(ClusterPhase::Updating));
    let ms = vec![machine("a", Phase::Blocked), waiting("b")];
    let heard = all_heard(&ms, 0);
    let p = decide::sweep(&obs(&c, &ms, &heard, 0));
    assert_eq!(p.status.phase, Some(ClusterPhase::Degraded));
    assert!(
        condition::find(&p.status.conditions, "MachinesReady")
            .unwrap()
            .message
            .contains("unwell: a")
    );
}

#[test]
fn a_pruned_ledger_grants_nothing_and_says_why() {
    let c = cluster(1, &[], vec![]);
    let ms = vec![waiting("m")];
    let heard = all_heard(&ms, 0);
    let p = decide::sweep(&obs(&c, &ms, &heard, 0));
    assert_eq!(ledger(&p), vec!["m"]);
    // The server's answer holds no ledger: the executor grants nothing.
    assert!(!decide::ledger_kept(&p.status.reboot_turns, &[]));
    assert!(decide::ledger_kept(
        &p.status.reboot_turns,
        &p.status.reboot_turns
    ));
    let mut stored = p.status.clone();
    stored.reboot_turns.clear();
    let s = decide::schema_pruned(&stored, 3, at(0));
    let prog = condition::find(&s.conditions, "Progressing").unwrap();
    assert_eq!(prog.reason, "RollingOut");
    assert!(prog.message.contains("status.rebootTurns"));
}

#[test]
fn a_budget_run_never_exceeds_max_unavailable() {
    // Simulate a rollout sweep by sweep: granted machines go down, then come
    // back without their grant; at every step the down machines and the
    // ledger stay within the budget, and at most one leader is out.
    for (max, leaders, followers) in [
        (1usize, 1usize, 0usize),
        (1, 3, 7),
        (3, 3, 7),
        (3, 0, 50),
        (1, 0, 50),
    ] {
        let leader_names: Vec<String> = (0..leaders).map(|i| format!("l{i}")).collect();
        let mut ms: Vec<MachineView> = leader_names.iter().map(|n| waiting(n)).collect();
        ms.extend((0..followers).map(|i| waiting(&format!("f{i:02}"))));
        let refs: Vec<&str> = leader_names.iter().map(String::as_str).collect();
        let mut c = cluster(max as i64, &refs, vec![]);
        let mut order = vec![];
        let mut rebooting: BTreeMap<String, i64> = BTreeMap::new();
        for step in 0..2000i64 {
            let now = step * 5;
            let heard = all_heard(&ms, now);
            let p = decide::sweep(&obs(&c, &ms, &heard, now));
            c.status = Some(p.status.clone());
            for g in &p.grants {
                let m = ms.iter_mut().find(|m| m.name == g.machine).unwrap();
                m.conditions = g.conditions.clone();
                m.resource_version = format!("{}", step * 10 + 1);
                m.phase = Some(Phase::Updating);
                rebooting.insert(m.name.clone(), now + 15);
                order.push(m.name.clone());
            }
            for m in ms.iter_mut() {
                if rebooting.get(&m.name).is_some_and(|t| *t <= now) {
                    rebooting.remove(&m.name);
                    m.phase = Some(Phase::Ready);
                    m.conditions.retain(|c| c.type_ == "Ready");
                    m.resource_version = format!("{}", step * 10 + 2);
                }
            }
            let out: Vec<&MachineView> = ms
                .iter()
                .filter(|m| m.holds_grant() || rebooting.contains_key(&m.name))
                .collect();
            assert!(out.len() <= max, "step {step}: {} out", out.len());
            assert!(out.iter().filter(|m| m.name.starts_with('l')).count() <= 1);
            if ms.iter().all(|m| m.phase == Some(Phase::Ready)) && p.status.reboot_turns.is_empty()
            {
                break;
            }
        }
        assert_eq!(
            order.len(),
            leaders + followers,
            "every machine had its turn"
        );
        assert_eq!(
            &order[..leaders],
            &leader_names[..],
            "leaders first, one at a time"
        );
    }
}
