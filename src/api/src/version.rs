//! Release versions: `yyyy.mm.dd-nnn`, a real calendar date and a serial from
//! 001 up within the day.
//!
//! Every field is zero-padded to a fixed width, so the byte order of two
//! version strings is their release order; [`Version`] orders by the string
//! and never parses numbers to compare. Parsing refuses a shape that does not
//! match and a date that never happened (2026.02.30), so a bad name is caught
//! when a release is bundled or a manifest is read, not when a machine fails
//! to download it.

use std::fmt;
use std::str::FromStr;

/// The shape, shared with the CRD patterns on spec.version and the catalog.
pub const PATTERN: &str = r"^\d{4}\.\d{2}\.\d{2}-\d{3}$";

/// A validated release version.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version(String);

/// Why a string is not a release version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VersionError {
    /// Not `yyyy.mm.dd-nnn`.
    Shape(String),
    /// The right shape, but no such day.
    Date(String),
    /// Serial 000, which no release uses.
    Serial(String),
}

impl fmt::Display for VersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionError::Shape(v) => write!(
                f,
                "version {v:?} is not yyyy.mm.dd-nnn (for example 2026.07.20-001)"
            ),
            VersionError::Date(v) => write!(f, "version {v:?} does not name a real calendar date"),
            VersionError::Serial(v) => {
                write!(f, "version {v:?} has serial 000; serials start at 001")
            }
        }
    }
}

impl std::error::Error for VersionError {}

fn shape_ok(b: &[u8]) -> bool {
    b.len() == 14
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'.',
            10 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}

fn number(s: &str) -> u32 {
    // Only called on runs of ASCII digits that `shape_ok` checked.
    s.bytes().fold(0, |n, c| n * 10 + u32::from(c - b'0'))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        2 => 28,
        _ => 0,
    }
}

impl Version {
    /// Checks `s` against the grammar.
    pub fn parse(s: &str) -> Result<Self, VersionError> {
        if !shape_ok(s.as_bytes()) {
            return Err(VersionError::Shape(s.to_owned()));
        }
        let (year, month, day) = (number(&s[0..4]), number(&s[5..7]), number(&s[8..10]));
        if year == 0 || day == 0 || day > days_in_month(year, month) {
            return Err(VersionError::Date(s.to_owned()));
        }
        if &s[11..] == "000" {
            return Err(VersionError::Serial(s.to_owned()));
        }
        Ok(Version(s.to_owned()))
    }

    /// The version as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for Version {
    type Err = VersionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Version::parse(s)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl serde::Serialize for Version {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Version {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Version::parse(&s).map_err(serde::de::Error::custom)
    }
}

impl schemars::JsonSchema for Version {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Version".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "pattern": PATTERN, "maxLength": 14 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_real_dates_and_serials() {
        for v in [
            "2026.07.20-001",
            "2024.02.29-999",
            "2000.02.29-010",
            "1999.12.31-001",
        ] {
            assert_eq!(Version::parse(v).unwrap().as_str(), v);
        }
    }

    #[test]
    fn refuses_bad_shapes_dates_and_serials() {
        let cases = [
            ("2026.7.20-001", "shape"),
            ("2026.07.20-01", "shape"),
            ("2026.07.20_001", "shape"),
            ("v2026.07.20-001", "shape"),
            ("2026.07.20-001 ", "shape"),
            ("２026.07.20-001", "shape"),
            ("", "shape"),
            ("2026.02.30-001", "date"),
            ("2025.02.29-001", "date"),
            ("1900.02.29-001", "date"),
            ("2026.13.01-001", "date"),
            ("2026.00.10-001", "date"),
            ("2026.04.31-001", "date"),
            ("2026.01.00-001", "date"),
            ("0000.01.01-001", "date"),
            ("2026.07.20-000", "serial"),
        ];
        for (v, kind) in cases {
            let err = Version::parse(v).unwrap_err();
            let got = match err {
                VersionError::Shape(_) => "shape",
                VersionError::Date(_) => "date",
                VersionError::Serial(_) => "serial",
            };
            assert_eq!(got, kind, "{v}");
            assert!(err.to_string().contains(&format!("{v:?}")), "{err}");
        }
    }

    #[test]
    fn orders_by_string() {
        let mut vs: Vec<Version> = ["2026.07.20-010", "2026.07.20-009", "2025.12.31-999"]
            .iter()
            .map(|v| v.parse().unwrap())
            .collect();
        vs.sort();
        let got: Vec<&str> = vs.iter().map(Version::as_str).collect();
        assert_eq!(got, ["2025.12.31-999", "2026.07.20-009", "2026.07.20-010"]);
    }

    #[test]
    fn serde_refuses_invalid() {
        let err = serde_json::from_str::<Version>("\"2026.02.30-001\"").unwrap_err();
        assert!(err.to_string().contains("real calendar date"), "{err}");
    }
}
