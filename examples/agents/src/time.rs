//! Just enough calendar for schedules: UTC minutes, `HH:MM` times of day and
//! weekdays. The demo has no clock of its own; callers pass `now`.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

const MINUTES_PER_DAY: i64 = 24 * 60;

/// A moment in UTC, to the minute. Written `2026-11-24T09:30Z` (seconds and the
/// `Z` may be left out when parsing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    /// Minutes since 1970-01-01T00:00Z.
    minutes: i64,
}

impl Timestamp {
    /// The moment `minutes` after 1970-01-01T00:00Z.
    #[must_use]
    pub const fn from_minutes(minutes: i64) -> Self {
        Timestamp { minutes }
    }

    /// Minutes since 1970-01-01T00:00Z.
    #[must_use]
    pub const fn minutes(self) -> i64 {
        self.minutes
    }

    /// The moment `minutes` later.
    #[must_use]
    pub const fn plus_minutes(self, minutes: i64) -> Self {
        Timestamp {
            minutes: self.minutes + minutes,
        }
    }

    /// Days since 1970-01-01.
    fn day(self) -> i64 {
        self.minutes.div_euclid(MINUTES_PER_DAY)
    }

    /// The minute of the day, 0..1440.
    fn minute_of_day(self) -> i64 {
        self.minutes.rem_euclid(MINUTES_PER_DAY)
    }

    /// The day of the week.
    #[must_use]
    pub fn weekday(self) -> Weekday {
        // 1970-01-01 was a Thursday.
        Weekday::ALL[usize::try_from((self.day() + 3).rem_euclid(7)).unwrap_or(0)]
    }

    /// The moment on day `day` (since 1970-01-01) at `time`.
    fn at(day: i64, time: TimeOfDay) -> Self {
        Timestamp {
            minutes: day * MINUTES_PER_DAY + i64::from(time.minute_of_day()),
        }
    }

    /// The first moment strictly after `self` that is at `time` on a day `keep`
    /// accepts (checks at most the next eight days).
    pub(crate) fn next_at(self, time: TimeOfDay, keep: impl Fn(Weekday) -> bool) -> Option<Self> {
        let today = self.day();
        (today..=today + 8)
            .map(|day| Timestamp::at(day, time))
            .find(|&candidate| candidate > self && keep(candidate.weekday()))
    }

    /// The next full hour strictly after `self`.
    #[must_use]
    pub(crate) fn next_hour(self) -> Self {
        Timestamp {
            minutes: (self.minutes.div_euclid(60) + 1) * 60,
        }
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_index = (month + 9) % 12;
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date of a day since 1970-01-01 (Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Why a text is not a [`Timestamp`] or a [`TimeOfDay`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadTime(String);

impl fmt::Display for BadTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadTime {}

/// Parses `digits` fixed-width decimal digits.
fn number(text: &str) -> Option<i64> {
    if text.is_empty() || !text.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

impl FromStr for Timestamp {
    type Err = BadTime;

    fn from_str(text: &str) -> Result<Self, BadTime> {
        let bad = || {
            BadTime(format!(
                "`{text}` is not a UTC date-time; write it like `2026-11-24T09:30Z`"
            ))
        };
        let trimmed = text.strip_suffix('Z').unwrap_or(text);
        let (date, time) = trimmed.split_once('T').ok_or_else(bad)?;
        let mut parts = date.split('-');
        let (Some(year), Some(month), Some(day), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        if year.len() != 4 || month.len() != 2 || day.len() != 2 {
            return Err(bad());
        }
        let (year, month, day) = (
            number(year).ok_or_else(bad)?,
            number(month).ok_or_else(bad)?,
            number(day).ok_or_else(bad)?,
        );
        // Seconds are accepted and dropped: schedules run to the minute.
        let time = match time.len() {
            5 => time,
            8 if time.as_bytes()[5] == b':' && number(&time[6..]).is_some_and(|s| s < 60) => {
                &time[..5]
            }
            _ => return Err(bad()),
        };
        let time: TimeOfDay = time.parse().map_err(|_| bad())?;
        let days = days_from_civil(year, month, day);
        // Reject dates that don't exist (`2026-02-30`): they don't round-trip.
        if !(1..=12).contains(&month) || civil_from_days(days) != (year, month, day) {
            return Err(bad());
        }
        Ok(Timestamp::at(days, time))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (year, month, day) = civil_from_days(self.day());
        let minute = self.minute_of_day();
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}Z",
            minute / 60,
            minute % 60
        )
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Cow::<'de, str>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Timestamp {
    fn schema_name() -> Cow<'static, str> {
        "Timestamp".into()
    }

    // Not `"format": "date-time"`: that is RFC 3339, which requires seconds, while
    // a timestamp is written to the minute (`2026-11-24T09:30Z`). The pattern
    // accepts exactly the shapes `from_str` does (seconds and `Z` optional).
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?Z?$"
        })
    }

    fn inline_schema() -> bool {
        true
    }
}

/// A time of day, `HH:MM` on a 24-hour clock, in UTC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimeOfDay {
    hour: u8,
    minute: u8,
}

impl TimeOfDay {
    /// `hour:minute`, if both are in range.
    #[must_use]
    pub const fn new(hour: u8, minute: u8) -> Option<Self> {
        if hour < 24 && minute < 60 {
            Some(TimeOfDay { hour, minute })
        } else {
            None
        }
    }

    fn minute_of_day(self) -> u16 {
        u16::from(self.hour) * 60 + u16::from(self.minute)
    }
}

impl FromStr for TimeOfDay {
    type Err = BadTime;

    fn from_str(text: &str) -> Result<Self, BadTime> {
        let bad = || {
            BadTime(format!(
                "`{text}` is not a time of day; write it as HH:MM, 24-hour"
            ))
        };
        let (hour, minute) = text.split_once(':').ok_or_else(bad)?;
        if hour.len() != 2 || minute.len() != 2 {
            return Err(bad());
        }
        let hour = number(hour).and_then(|hour| u8::try_from(hour).ok());
        let minute = number(minute).and_then(|minute| u8::try_from(minute).ok());
        hour.zip(minute)
            .and_then(|(hour, minute)| TimeOfDay::new(hour, minute))
            .ok_or_else(bad)
    }
}

impl fmt::Display for TimeOfDay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}", self.hour, self.minute)
    }
}

impl Serialize for TimeOfDay {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TimeOfDay {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Cow::<'de, str>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for TimeOfDay {
    fn schema_name() -> Cow<'static, str> {
        "TimeOfDay".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$"})
    }

    fn inline_schema() -> bool {
        true
    }
}

/// A day of the week.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)] // The day names say it all.
pub enum Weekday {
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
    Sunday,
}

impl Weekday {
    /// Monday to Sunday.
    pub const ALL: [Weekday; 7] = [
        Weekday::Monday,
        Weekday::Tuesday,
        Weekday::Wednesday,
        Weekday::Thursday,
        Weekday::Friday,
        Weekday::Saturday,
        Weekday::Sunday,
    ];

    /// Monday to Friday.
    #[must_use]
    pub fn is_weekday(self) -> bool {
        !matches!(self, Weekday::Saturday | Weekday::Sunday)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    #[test]
    fn timestamps_round_trip_and_know_their_weekday() {
        for text in [
            "1970-01-01T00:00Z",
            "2026-11-23T05:13Z",
            "2024-02-29T23:59Z",
        ] {
            assert_eq!(at(text).to_string(), text);
        }
        assert_eq!(at("2026-11-23T09:00:59").to_string(), "2026-11-23T09:00Z");
        assert_eq!(at("1970-01-01T00:00Z").weekday(), Weekday::Thursday);
        assert_eq!(at("2026-11-23T10:00Z").weekday(), Weekday::Monday);
        assert_eq!(at("2026-11-29T10:00Z").weekday(), Weekday::Sunday);
    }

    #[test]
    fn bad_timestamps_are_refused() {
        for text in [
            "2026-02-30T09:00Z",
            "2026-13-01T09:00Z",
            "2026-11-23 09:00",
            "2026-11-23T9:00",
            "2026-11-23T24:00",
            "+2026-11-23T09:00",
            "",
        ] {
            assert!(text.parse::<Timestamp>().is_err(), "{text}");
        }
    }

    #[test]
    fn next_occurrences_are_strictly_later() {
        let nine = TimeOfDay::new(9, 0).unwrap();
        let monday_nine = at("2026-11-23T09:00Z");
        assert_eq!(
            monday_nine.next_at(nine, |_| true).unwrap().to_string(),
            "2026-11-24T09:00Z"
        );
        let friday_ten = at("2026-11-27T10:00Z");
        assert_eq!(
            friday_ten
                .next_at(nine, Weekday::is_weekday)
                .unwrap()
                .to_string(),
            "2026-11-30T09:00Z"
        );
        assert_eq!(monday_nine.next_hour().to_string(), "2026-11-23T10:00Z");
        assert_eq!(
            at("2026-11-23T09:59Z").next_hour().to_string(),
            "2026-11-23T10:00Z"
        );
    }
}
