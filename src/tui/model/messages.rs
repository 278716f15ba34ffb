//! The status line's message and the message log: every message of the session with the time it was shown, in
//! the analyst's time zone. The time is the last one the event loop gave ([`super::Action::Tick`]) and the zone
//! the one the model started with: the model reads no clock and no system setting. A message that must not flash
//! by (a session refused at the start, while the start's background jobs report) is held on the status line until
//! the analyst's next key or click; what is said meanwhile goes to the log.

use std::time::SystemTime;

use jiff::Timestamp;
use jiff::tz::TimeZone;

/// One status message of the session and when it was shown (`HH:MM:SS` in the log's time zone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LogEntry {
    pub time: String,
    pub message: String,
}

#[derive(Debug)]
pub(crate) struct Messages {
    status: String,
    /// Whether the status line keeps its message until the analyst's next key ([`Messages::hold`]).
    held: bool,
    /// Whether the status message is in the log already (a held one goes there when it is shown).
    logged: bool,
    /// Every status message of the session, oldest first.
    log: Vec<LogEntry>,
    /// The time the event loop last gave.
    now: SystemTime,
    /// The zone the log's times are in.
    zone: TimeZone,
}

impl Messages {
    pub(super) fn new(first: String, now: SystemTime, zone: TimeZone) -> Messages {
        Messages {
            status: first,
            held: false,
            logged: false,
            log: Vec::new(),
            now,
            zone,
        }
    }

    /// The log's time zone as the analyst reads it: its abbreviation now ("CET", "EDT"), or its offset where the
    /// zone has none ("+05:30"); "UTC" for UTC.
    pub(crate) fn zone_name(&self) -> String {
        let Ok(now) = Timestamp::try_from(self.now) else {
            return "UTC".into();
        };
        let info = self.zone.to_offset_info(now);
        match info.abbreviation() {
            "" => info.offset().to_string(),
            abbreviation => abbreviation.to_string(),
        }
    }

    pub(crate) fn status(&self) -> &str {
        &self.status
    }

    pub(crate) fn log(&self) -> &[LogEntry] {
        &self.log
    }

    /// Show `message` on the status line (it goes in the log at the end of the action); while a message is held,
    /// log it only.
    pub(super) fn say(&mut self, message: impl Into<String>) {
        let message = message.into();
        match self.held {
            true => self.log_now(message),
            false => {
                self.status = message;
                self.logged = false;
            }
        }
    }

    /// Show `message` on the status line, and in the log now, and keep it there until [`Messages::release`]: for
    /// what the analyst must read though nothing they did caused it just then.
    pub(super) fn hold(&mut self, message: impl Into<String>) {
        self.held = false;
        self.say(message);
        self.record();
        self.held = true;
    }

    /// The analyst acted (a key, a click): a held message gives way to the next one.
    pub(super) fn release(&mut self) {
        self.held = false;
    }

    pub(super) fn tick(&mut self, now: SystemTime) {
        self.now = now;
    }

    /// Log the status message if it is not the one logged last (called after every action); a held one was
    /// logged when it was shown.
    pub(super) fn record(&mut self) {
        if self.logged {
            return;
        }
        self.logged = true;
        let status = self.status.clone();
        self.log_now(status);
    }

    /// Put `message` in the log, at the time last given, unless it is the one logged last.
    fn log_now(&mut self, message: String) {
        if message.is_empty() || self.log.last().is_some_and(|e| e.message == message) {
            return;
        }
        self.log.push(LogEntry {
            time: clock_text(self.now, &self.zone),
            message,
        });
    }
}

/// `time` as `HH:MM:SS` of its day in `zone` (a time outside the range a calendar can show reads `--:--:--`).
pub(crate) fn clock_text(time: SystemTime, zone: &TimeZone) -> String {
    Timestamp::try_from(time).map_or_else(
        |_| "--:--:--".into(),
        |stamp| {
            stamp
                .to_zoned_datetime(zone.clone())
                .strftime("%H:%M:%S")
                .to_string()
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::time::{Duration, UNIX_EPOCH};

    /// Central European time with its summer rule, spelt out so that no time-zone database is needed.
    fn central_european() -> TimeZone {
        TimeZone::posix("CET-1CEST,M3.5.0,M10.5.0/3").expect("a valid rule")
    }

    #[test]
    fn the_clock_reads_hours_minutes_seconds_in_the_zone_given() {
        let time = UNIX_EPOCH + Duration::from_secs(3 * 86_400 + 13 * 3600 + 5 * 60 + 9);
        assert_eq!(clock_text(time, &TimeZone::UTC), "13:05:09");
        assert_eq!(clock_text(time, &central_european()), "14:05:09");
        // 2026-07-01 12:00 UTC is summer time in Paris.
        let summer = UNIX_EPOCH + Duration::from_secs(1_782_907_200);
        assert_eq!(clock_text(summer, &central_european()), "14:00:00");
    }

    #[test]
    fn the_log_names_its_zone_as_it_is_now() {
        let winter = UNIX_EPOCH + Duration::from_secs(1_767_268_800);
        let mut messages = Messages::new(String::new(), winter, central_european());
        assert_eq!(messages.zone_name(), "CET");
        messages.tick(UNIX_EPOCH + Duration::from_secs(1_782_907_200));
        assert_eq!(messages.zone_name(), "CEST");
        let india = TimeZone::fixed(jiff::tz::Offset::from_seconds(19_800).expect("an offset"));
        assert_eq!(
            Messages::new(String::new(), winter, india).zone_name(),
            "+05:30"
        );
        assert_eq!(
            Messages::new(String::new(), winter, TimeZone::UTC).zone_name(),
            "UTC"
        );
    }

    #[test]
    fn a_held_message_stays_until_released_and_what_comes_meanwhile_is_logged() {
        let mut messages = Messages::new(String::new(), UNIX_EPOCH, TimeZone::UTC);
        messages.hold("started without the session");
        messages.say("cache entry written");
        messages.record();
        assert_eq!(messages.status(), "started without the session");
        messages.release();
        messages.record();
        assert_eq!(messages.status(), "started without the session");
        messages.say("split #0");
        messages.record();
        assert_eq!(messages.status(), "split #0");
        let logged: Vec<&str> = messages.log().iter().map(|e| e.message.as_str()).collect();
        assert_eq!(
            logged,
            [
                "started without the session",
                "cache entry written",
                "split #0"
            ]
        );
    }

    #[test]
    fn a_message_is_logged_once_at_the_time_last_given() {
        let start = UNIX_EPOCH + Duration::from_secs(3600);
        let mut messages = Messages::new("? for help".into(), start, TimeZone::UTC);
        messages.record();
        messages.record();
        messages.tick(start + Duration::from_secs(61));
        messages.say("split #0");
        messages.record();
        let times: Vec<(&str, &str)> = messages
            .log()
            .iter()
            .map(|e| (e.time.as_str(), e.message.as_str()))
            .collect();
        assert_eq!(
            times,
            [("01:00:00", "? for help"), ("01:01:01", "split #0")]
        );
    }
}
