//! Conditions: typed, timestamped verdicts in the shape of metav1.Condition.
//!
//! The rules are the Kubernetes ones. `lastTransitionTime` moves only when
//! the status flips, so it tells how long the current verdict has held. A
//! *transition* (what an operator posts an Event for) is a new condition, or
//! a changed status or reason. Grants (RebootApproved) are conditions whose
//! presence is the grant: they are removed, never set False.
//! Nothing here reads a clock; the caller passes `now`.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A point in time as Kubernetes writes it: RFC 3339, UTC, whole seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(jiff::Timestamp);

impl Time {
    /// `t`, truncated to whole seconds as the API server stores it.
    pub fn new(t: jiff::Timestamp) -> Self {
        Time(jiff::Timestamp::from_second(t.as_second()).unwrap_or(t))
    }
    /// Seconds since the Unix epoch.
    pub fn from_unix(seconds: i64) -> Option<Self> {
        jiff::Timestamp::from_second(seconds).ok().map(Time)
    }
    /// The underlying timestamp.
    pub fn timestamp(self) -> jiff::Timestamp {
        self.0
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.strftime("%Y-%m-%dT%H:%M:%SZ"))
    }
}

impl std::str::FromStr for Time {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse::<jiff::Timestamp>().map(Time::new).map_err(|e| {
            format!("{s:?} is not an RFC 3339 time (for example 2026-07-20T10:00:00Z): {e}")
        })
    }
}

impl Serialize for Time {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Time {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Time".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "format": "date-time" })
    }
}

/// A condition's verdict. A string, not a bool: Unknown is a real answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum ConditionStatus {
    True,
    False,
    Unknown,
}

/// The pattern Kubernetes requires of a condition type.
pub const TYPE_PATTERN: &str = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$";
/// The pattern Kubernetes requires of a reason: one CamelCase word.
pub const REASON_PATTERN: &str = r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$";

/// One observation, in the shape of metav1.Condition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Condition {
    /// The kind of observation, in CamelCase; the key of the list, so a status
    /// holds at most one condition of each type.
    #[schemars(regex(pattern = TYPE_PATTERN), length(max = 316))]
    #[serde(rename = "type")]
    pub type_: String,
    /// The verdict: True, False, or Unknown when the writer cannot tell.
    pub status: ConditionStatus,
    /// The metadata.generation of the spec this verdict was made against, so
    /// a reader can tell a verdict on the current spec from a stale one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub observed_generation: Option<i64>,
    /// One CamelCase word for the cause, for programs to match on.
    #[schemars(regex(pattern = REASON_PATTERN), length(min = 1, max = 1024))]
    pub reason: String,
    /// The detail behind the reason, for a person; names the fix when there is one.
    #[serde(default)]
    #[schemars(length(max = 32768))]
    pub message: String,
    /// When the status last changed. Rewriting the same status leaves it alone.
    pub last_transition_time: Time,
}

impl Condition {
    /// A condition stamped at `now`; [`set`] keeps an older stamp when the
    /// status did not flip.
    pub fn new(
        type_: &str,
        status: ConditionStatus,
        reason: &str,
        message: impl Into<String>,
        now: Time,
    ) -> Self {
        Condition {
            type_: type_.to_owned(),
            status,
            observed_generation: None,
            reason: reason.to_owned(),
            message: message.into(),
            last_transition_time: now,
        }
    }

    /// The same condition, judged against `generation`.
    pub fn at_generation(mut self, generation: i64) -> Self {
        self.observed_generation = Some(generation);
        self
    }
}

/// The condition of `type_` in `list`.
pub fn find<'a>(list: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    list.iter().find(|c| c.type_ == type_)
}

/// Adds or updates `c` by type. The held `lastTransitionTime` survives unless
/// the status flips; reason, message and generation always take the new
/// values. A new type is appended, keeping the list's order stable.
pub fn set(list: &mut Vec<Condition>, mut c: Condition) {
    match list.iter_mut().find(|held| held.type_ == c.type_) {
        Some(held) => {
            if held.status == c.status {
                c.last_transition_time = held.last_transition_time;
            }
            *held = c;
        }
        None => list.push(c),
    }
}

/// Removes the condition of `type_`: how a grant is revoked. Returns whether
/// one was there.
pub fn remove(list: &mut Vec<Condition>, type_: &str) -> bool {
    let before = list.len();
    list.retain(|c| c.type_ != type_);
    list.len() != before
}

/// The conditions of `after` that transitioned from `before`: new, or with a
/// changed status or reason. An operator compares the list it wrote with the
/// one it held, after the write lands, so a refused write posts no Event.
pub fn transitions<'a>(before: &[Condition], after: &'a [Condition]) -> Vec<&'a Condition> {
    after
        .iter()
        .filter(|c| match find(before, &c.type_) {
            None => true,
            Some(held) => held.status != c.status || held.reason != c.reason,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::ConditionStatus::*;
    use super::*;

    fn t(s: i64) -> Time {
        Time::from_unix(1_780_000_000 + s).unwrap()
    }

    #[test]
    fn transition_time_moves_only_when_status_flips() {
        let mut list = vec![];
        set(
            &mut list,
            Condition::new("Ready", False, "Booting", "", t(0)),
        );
        set(
            &mut list,
            Condition::new("Ready", False, "Waiting", "more", t(10)),
        );
        assert_eq!(list[0].last_transition_time, t(0));
        assert_eq!(list[0].reason, "Waiting");
        assert_eq!(list[0].message, "more");
        set(
            &mut list,
            Condition::new("Ready", True, "Reconciled", "", t(20)),
        );
        assert_eq!(list[0].last_transition_time, t(20));
        set(
            &mut list,
            Condition::new("Ready", True, "Reconciled", "", t(30)).at_generation(4),
        );
        assert_eq!(list[0].last_transition_time, t(20));
        assert_eq!(list[0].observed_generation, Some(4));
        assert_eq!(list.len(), 1);
    }

    #[test]
    fn new_types_append_in_order() {
        let mut list = vec![];
        set(&mut list, Condition::new("B", True, "R", "", t(0)));
        set(&mut list, Condition::new("A", True, "R", "", t(0)));
        let types: Vec<&str> = list.iter().map(|c| c.type_.as_str()).collect();
        assert_eq!(types, ["B", "A"]);
    }

    #[test]
    fn transitions_are_new_or_changed_status_or_reason() {
        let before = vec![
            Condition::new("Same", True, "R", "m1", t(0)),
            Condition::new("Flip", True, "R", "", t(0)),
            Condition::new("Reason", False, "Old", "", t(0)),
        ];
        let after = vec![
            Condition::new("Same", True, "R", "message only", t(5)),
            Condition::new("Flip", False, "R", "", t(5)),
            Condition::new("Reason", False, "New", "", t(5)),
            Condition::new("Fresh", Unknown, "R", "", t(5)),
        ];
        let got: Vec<&str> = transitions(&before, &after)
            .iter()
            .map(|c| c.type_.as_str())
            .collect();
        assert_eq!(got, ["Flip", "Reason", "Fresh"]);
    }

    #[test]
    fn grants_are_removed_not_falsified() {
        let mut list = vec![Condition::new(
            "RebootApproved",
            True,
            "TurnGranted",
            "",
            t(0),
        )];
        assert!(remove(&mut list, "RebootApproved"));
        assert!(list.is_empty());
        assert!(!remove(&mut list, "RebootApproved"));
    }

    #[test]
    fn wire_form_matches_kubernetes() {
        let c = Condition::new("Ready", True, "Reconciled", "ok", t(0)).at_generation(3);
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "type": "Ready", "status": "True", "observedGeneration": 3,
                "reason": "Reconciled", "message": "ok",
                "lastTransitionTime": "2026-05-28T20:26:40Z"
            })
        );
        let back: Condition = serde_json::from_value(json).unwrap();
        assert_eq!(back, c);
    }

    #[test]
    fn time_truncates_to_seconds_and_refuses_garbage() {
        let parsed: Time = "2026-07-20T10:00:00.75Z".parse().unwrap();
        assert_eq!(parsed.to_string(), "2026-07-20T10:00:00Z");
        assert!(
            "yesterday"
                .parse::<Time>()
                .unwrap_err()
                .contains("RFC 3339")
        );
    }
}
