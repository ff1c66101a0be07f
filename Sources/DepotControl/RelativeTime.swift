/// Durations for people, as depotctl shows them beside a state: `12 s`, `4 min`, `2 h 5 min`, `3 d 4 h`.
enum RelativeTime {
    static func text(seconds: Double) -> String {
        let whole = max(0, Int(seconds.rounded()))
        let (days, hours, minutes) = (whole / 86_400, whole / 3600 % 24, whole / 60 % 60)
        if days > 0 { return hours > 0 ? "\(days) d \(hours) h" : "\(days) d" }
        if hours > 0 { return minutes > 0 ? "\(hours) h \(minutes) min" : "\(hours) h" }
        if minutes > 0 { return "\(minutes) min" }
        return "\(whole) s"
    }

    /// An interval as set: `2.5 s` when it has a fraction under a minute, else as `text` says.
    static func interval(seconds: Double) -> String {
        guard seconds < 60, seconds != seconds.rounded() else { return text(seconds: seconds) }
        return "\((seconds * 10).rounded() / 10) s"
    }

    /// `12 s ago`, or `just now` under a second.
    static func ago(_ seconds: Double) -> String {
        seconds < 1 ? "just now" : "\(text(seconds: seconds)) ago"
    }

    /// When the next refresh (a retry, when `retrying`) is due, `seconds` from now: `retry in 8 s`, `next in 48 s`;
    /// under a second, `retry due now` — a time, not an order to the reader.
    static func due(_ seconds: Double, retrying: Bool) -> String {
        let what = retrying ? "retry" : "next"
        return seconds < 1 ? "\(what) due now" : "\(what) in \(text(seconds: seconds))"
    }
}
