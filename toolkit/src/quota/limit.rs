//! A quota's value: how many calls in what period, written `30/min`.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The period of a [`Quota`]: one second, minute, hour or day.
///
/// Written after the `/` of a quota: `s`, `sec` or `second`; `min` or `minute`;
/// `h` or `hour`; `d` or `day`. Plurals, `m` (minute or month?) and multiples
/// (`5min`) are not accepted: a quota reads one way only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Period {
    /// One second.
    Second,
    /// One minute.
    Minute,
    /// One hour.
    Hour,
    /// One day (24 hours).
    Day,
}

/// Every spelling of a unit, and the period it stands for: the grammar's one table
/// (the `#[tool(quota = "..")]` attribute reads the same words).
const UNITS: &[(&str, Period)] = &[
    ("s", Period::Second),
    ("sec", Period::Second),
    ("second", Period::Second),
    ("min", Period::Minute),
    ("minute", Period::Minute),
    ("h", Period::Hour),
    ("hour", Period::Hour),
    ("d", Period::Day),
    ("day", Period::Day),
];

/// The units as the errors list them.
const UNIT_LIST: &str = "s, sec, second, min, minute, h, hour, d, day";

impl Period {
    /// How long the period lasts.
    #[must_use]
    pub const fn duration(self) -> Duration {
        Duration::from_secs(match self {
            Period::Second => 1,
            Period::Minute => 60,
            Period::Hour => 60 * 60,
            Period::Day => 24 * 60 * 60,
        })
    }

    /// The shortest spelling, as [`Quota`]'s `Display` writes it.
    #[must_use]
    pub const fn unit(self) -> &'static str {
        match self {
            Period::Second => "s",
            Period::Minute => "min",
            Period::Hour => "h",
            Period::Day => "d",
        }
    }

    /// The period in words after "a": `second`, `minute`, `hour`, `day`.
    #[must_use]
    pub const fn noun(self) -> &'static str {
        match self {
            Period::Second => "second",
            Period::Minute => "minute",
            Period::Hour => "hour",
            Period::Day => "day",
        }
    }

    /// `a minute`, `an hour`.
    fn with_article(self) -> &'static str {
        match self {
            Period::Second => "a second",
            Period::Minute => "a minute",
            Period::Hour => "an hour",
            Period::Day => "a day",
        }
    }
}

/// A limit on calls: at most [`count`](Self::count) calls per
/// [`period`](Self::period), per principal and tool.
///
/// Parsed from and written as `<count>/<unit>`, like `30/min` (see [`Period`] for
/// the units); the count is a whole number from 1 to 4294967295. Declared on a
/// tool with `#[tool(quota = "30/min")]`, or set at run time through
/// [`Quotas`](super::Quotas).
///
/// The limit is a rate, counted with GCRA (the generic cell rate algorithm): a
/// caller with nothing spent may make `count` calls at once, and then one more
/// each `period / count` (two seconds for `30/min`), never more than `count` in
/// any `period`.
///
/// ```
/// use std::time::Duration;
/// use toolkit::quota::{Period, Quota};
///
/// let quota: Quota = "30/minute".parse()?;
/// assert_eq!((quota.count(), quota.period()), (30, Period::Minute));
/// assert_eq!(quota.per(), Duration::from_secs(60));
/// assert_eq!(quota.to_string(), "30/min");
/// let error = "30/mins".parse::<Quota>().unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "unknown unit `mins` in quota `30/mins`; expected one of s, sec, second, min, minute, h, hour, d, day (did you mean `min`?)"
/// );
/// # Ok::<(), toolkit::quota::QuotaParseError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Quota {
    count: u32,
    period: Period,
}

impl Quota {
    /// At most `count` calls per `period`.
    ///
    /// # Errors
    /// [`QuotaParseError::ZeroCount`] for a count of 0: a quota that refuses every
    /// call is a tool that should not be in the view.
    pub const fn new(count: u32, period: Period) -> Result<Quota, QuotaParseError> {
        if count == 0 {
            return Err(QuotaParseError::ZeroCount);
        }
        Ok(Quota { count, period })
    }

    /// What `#[tool(quota = "..")]` writes, after checking the count: a count of 0
    /// cannot reach here.
    #[doc(hidden)]
    #[must_use]
    pub const fn declared(count: u32, period: Period) -> Quota {
        Quota {
            count: if count == 0 { 1 } else { count },
            period,
        }
    }

    /// How many calls the period allows.
    #[must_use]
    pub const fn count(self) -> u32 {
        self.count
    }

    /// The period.
    #[must_use]
    pub const fn period(self) -> Period {
        self.period
    }

    /// The period's length.
    #[must_use]
    pub const fn per(self) -> Duration {
        self.period.duration()
    }

    /// `30 times a minute`, `once an hour`: the limit in the words of a refusal.
    #[must_use]
    pub fn in_words(self) -> String {
        let times = match self.count {
            1 => "once".to_owned(),
            2 => "twice".to_owned(),
            count => format!("{count} times"),
        };
        format!("{times} {}", self.period.with_article())
    }
}

/// GCRA's parameters of a [`Quota`] in whole nanoseconds, as the database stores
/// count: per principal and tool they keep the theoretical arrival time (TAT) of
/// the next call, and admit a call when `max(TAT, now) - now <= tolerance`, moving
/// the TAT to `max(TAT, now) + interval`.
#[cfg_attr(
    not(any(
        feature = "sqlite",
        feature = "postgres",
        feature = "mcp",
        feature = "inbox"
    )),
    allow(dead_code)
)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Gcra {
    /// T, the emission interval: the period over the count, rounded up to a whole
    /// nanosecond, so the rate is never above the quota's (and never 0, which
    /// would admit every call).
    pub(crate) interval: i64,
    /// τ = (count - 1) × T: a caller with nothing spent is admitted `count` calls
    /// at once.
    pub(crate) tolerance: i64,
    /// count × T: the furthest ahead of now a TAT gets on a clock that never goes
    /// back. A TAT further ahead than that (and [`CLOCK_JUMP_SLACK`]) was written
    /// by a clock that has since gone back, or is corrupt.
    pub(crate) full: i64,
}

/// How far a stored TAT may be ahead of the furthest a monotonic clock leaves it
/// before the store takes its clock to have gone back: two replicas' statements
/// read the database's clock when each starts, so one that waited for the other's
/// row lock may read a time a little before the other's.
#[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
pub(crate) const CLOCK_JUMP_SLACK: Duration = Duration::from_secs(1);

impl Quota {
    /// The quota as GCRA counts it in a database (and a
    /// peer limit, `serving::PeerLimit`, which checks before it spends).
    #[cfg_attr(
        not(any(
            feature = "sqlite",
            feature = "postgres",
            feature = "mcp",
            feature = "inbox"
        )),
        allow(dead_code)
    )]
    pub(crate) fn gcra(self) -> Gcra {
        let count = i64::from(self.count);
        // At most a day (86_400e9 ns), far inside i64; the count is at least 1.
        let per = i64::try_from(self.per().as_nanos()).unwrap_or(i64::MAX);
        let interval = (per + count - 1) / count;
        Gcra {
            interval,
            tolerance: (count - 1) * interval,
            full: count * interval,
        }
    }
}

impl fmt::Display for Quota {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.count, self.period.unit())
    }
}

/// As written: `"30/min"`.
impl serde::Serialize for Quota {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl FromStr for Quota {
    type Err = QuotaParseError;

    fn from_str(text: &str) -> Result<Quota, QuotaParseError> {
        let malformed = || QuotaParseError::Malformed {
            text: crate::echo::echo(text),
        };
        let (count, unit) = text.split_once('/').ok_or_else(malformed)?;
        if count.is_empty() || unit.is_empty() || !count.bytes().all(|b| b.is_ascii_digit()) {
            return Err(malformed());
        }
        let period = UNITS
            .iter()
            .find(|(word, _)| *word == unit)
            .map(|&(_, period)| period)
            .ok_or_else(|| QuotaParseError::UnknownUnit {
                text: crate::echo::echo(text),
                unit: crate::echo::echo(unit),
                suggestion: crate::suggest::closest(unit, UNITS.iter().map(|(word, _)| *word))
                    .map(str::to_owned),
            })?;
        // Only digits are left, so the one way to fail is too many of them.
        let Ok(parsed) = count.parse::<u32>() else {
            return Err(QuotaParseError::CountTooLarge {
                count: crate::echo::echo(count),
            });
        };
        Quota::new(parsed, period)
    }
}

/// Why a text is not a [`Quota`]. Each message names the text and how to write it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QuotaParseError {
    /// Not `<count>/<unit>` (`30 per minute`, `/min`, `30`).
    #[error(
        "malformed quota `{text}`; write a whole number of calls, `/` and a unit, like `30/min` (units: {UNIT_LIST})"
    )]
    Malformed {
        /// The text, cut and cleaned.
        text: String,
    },
    /// A unit that is not one of [`Period`]'s.
    #[error("unknown unit `{unit}` in quota `{text}`; expected one of {UNIT_LIST}{}", did_you_mean(.suggestion.as_deref()))]
    UnknownUnit {
        /// The whole text, cut and cleaned.
        text: String,
        /// The unit as written, cut and cleaned.
        unit: String,
        /// The closest unit, if one is close.
        suggestion: Option<String>,
    },
    /// A count of 0.
    #[error(
        "a quota of 0 calls refuses every call; allow at least 1 (like `1/min`), or leave the tool out of the view"
    )]
    ZeroCount,
    /// A count past `u32::MAX`.
    #[error(
        "the quota's count {count} is more than 4294967295; use a longer unit (like `/d`) for a smaller count"
    )]
    CountTooLarge {
        /// The count as written, cut.
        count: String,
    },
}

fn did_you_mean(suggestion: Option<&str>) -> String {
    suggestion.map_or_else(String::new, |unit| format!(" (did you mean `{unit}`?)"))
}

#[cfg(test)]
mod tests {
    use super::{Period, Quota, QuotaParseError};

    #[test]
    fn every_unit_spelling_reads_and_writes_back_in_its_shortest_form() {
        for (text, written) in [
            ("1/s", "1/s"),
            ("2/sec", "2/s"),
            ("3/second", "3/s"),
            ("30/min", "30/min"),
            ("30/minute", "30/min"),
            ("4/h", "4/h"),
            ("4/hour", "4/h"),
            ("5/d", "5/d"),
            ("5/day", "5/d"),
            ("4294967295/d", "4294967295/d"),
        ] {
            let quota: Quota = text.parse().expect(text);
            assert_eq!(quota.to_string(), written);
            assert_eq!(written.parse::<Quota>(), Ok(quota));
        }
    }

    #[test]
    fn bad_quota_strings_at_run_time_say_how_to_write_one() {
        let error = |text: &str| text.parse::<Quota>().unwrap_err().to_string();
        let malformed = |text: &str| {
            format!(
                "malformed quota `{text}`; write a whole number of calls, `/` and a unit, like `30/min` (units: s, sec, second, min, minute, h, hour, d, day)"
            )
        };
        for text in [
            "30 per minute",
            "/min",
            "30",
            "30/",
            "-1/min",
            " 30/min",
            "3 0/min",
        ] {
            assert_eq!(error(text), malformed(text), "{text:?}");
        }
        assert_eq!(
            error("30/min/h"),
            "unknown unit `min/h` in quota `30/min/h`; expected one of s, sec, second, min, minute, h, hour, d, day"
        );
        assert_eq!(
            error("30/hours"),
            "unknown unit `hours` in quota `30/hours`; expected one of s, sec, second, min, minute, h, hour, d, day (did you mean `hour`?)"
        );
        assert_eq!(
            error("0/min"),
            "a quota of 0 calls refuses every call; allow at least 1 (like `1/min`), or leave the tool out of the view"
        );
        assert_eq!(
            error("4294967296/min"),
            "the quota's count 4294967296 is more than 4294967295; use a longer unit (like `/d`) for a smaller count"
        );
        assert_eq!(Quota::new(0, Period::Day), Err(QuotaParseError::ZeroCount));
    }

    #[test]
    fn a_hostile_quota_text_comes_back_cut_and_cleaned() {
        let text = format!("{}\u{202e}/min", "9".repeat(10_000));
        let message = text.parse::<Quota>().unwrap_err().to_string();
        assert!(message.len() < 400, "{message}");
        assert!(!message.contains('\u{202e}'));
    }

    #[test]
    fn gcra_never_counts_faster_than_the_quota_nor_overflows() {
        let gcra = |text: &str| text.parse::<Quota>().unwrap().gcra();
        let third = gcra("3/s");
        // 1e9 / 3 rounded up: three calls at once, then one each 333,333,334 ns.
        assert_eq!(
            (third.interval, third.tolerance, third.full),
            (333_333_334, 666_666_668, 1_000_000_002)
        );
        // More calls a second than nanoseconds: one a nanosecond, never 0.
        let most = gcra("4294967295/s");
        assert_eq!(
            (most.interval, most.tolerance, most.full),
            (1, 4_294_967_294, 4_294_967_295)
        );
        let rarest = gcra("1/d");
        assert_eq!(
            (rarest.interval, rarest.tolerance, rarest.full),
            (86_400_000_000_000, 0, 86_400_000_000_000)
        );
        let largest = gcra("4294967295/d");
        assert_eq!(largest.interval, 20_117);
        assert!(largest.full.checked_mul(3).is_some());
    }

    #[test]
    fn a_limit_reads_in_words() {
        let words = |text: &str| text.parse::<Quota>().unwrap().in_words();
        assert_eq!(words("30/min"), "30 times a minute");
        assert_eq!(words("1/h"), "once an hour");
        assert_eq!(words("2/d"), "twice a day");
    }
}
