//! Binary quantities (`20Gi`, `512Mi`, `1048576`) as the storage fields and
//! goMemoryLimit write them: a whole number of bytes or of Ki/Mi/Gi/Ti.

/// The bytes a quantity names, or None when it is not one (wrong suffix,
/// fraction, sign, overflow).
pub fn bytes(q: &str) -> Option<u64> {
    let (digits, unit) = match q.find(|c: char| !c.is_ascii_digit()) {
        Some(i) => q.split_at(i),
        None => (q, ""),
    };
    if digits.is_empty() {
        return None;
    }
    let shift = match unit {
        "" => 0,
        "Ki" => 10,
        "Mi" => 20,
        "Gi" => 30,
        "Ti" => 40,
        _ => return None,
    };
    let n: u64 = digits.parse().ok()?;
    n.checked_mul(1u64 << shift)
}

/// `bytes` written back in the largest unit that divides it exactly.
pub fn format(bytes: u64) -> String {
    for (shift, unit) in [(40, "Ti"), (30, "Gi"), (20, "Mi"), (10, "Ki")] {
        if bytes != 0 && bytes.is_multiple_of(1u64 << shift) {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    bytes.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_binary_units() {
        assert_eq!(bytes("0"), Some(0));
        assert_eq!(bytes("1024"), Some(1024));
        assert_eq!(bytes("2Ki"), Some(2048));
        assert_eq!(bytes("20Gi"), Some(20 << 30));
        assert_eq!(bytes("1Ti"), Some(1 << 40));
    }

    #[test]
    fn refuses_what_is_not_a_binary_quantity() {
        for bad in [
            "",
            "Gi",
            "20G",
            "20gi",
            "1.5Gi",
            "-1Gi",
            "20 Gi",
            "99999999999999999999",
            "16777216Ti",
        ] {
            assert_eq!(bytes(bad), None, "{bad}");
        }
    }

    #[test]
    fn formats_in_the_largest_exact_unit() {
        assert_eq!(format(20 << 30), "20Gi");
        assert_eq!(format(1536 << 20), "1536Mi");
        assert_eq!(format(1000), "1000");
        assert_eq!(format(0), "0");
    }
}
