#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// An HTTP date (RFC 9110 §5.6.7), read in the three forms a recipient must accept: the preferred IMF-fixdate
/// `Sun, 06 Nov 1994 08:49:37 GMT`, the obsolete RFC 850 form `Sunday, 06-Nov-94 08:49:37 GMT` and C's asctime form
/// `Sun Nov  6 08:49:37 1994`. Written by hand: Foundation's formatters depend on the locale, and this is small.
package enum HTTPDate {
    /// The date `text` names; nil when it is not an HTTP date (an `Expires: 0`, say, which means "already expired").
    package static func parse(_ text: some StringProtocol, now: Date = Date()) -> Date? {
        let trimmed = String(text.trimmingOptionalWhitespace())
        if let comma = trimmed.firstIndex(of: ",") {
            // IMF-fixdate or RFC 850: the day, month and year, then the time and GMT.
            let fields = trimmed[trimmed.index(after: comma)...].split(whereSeparator: { $0 == " " || $0 == "-" })
            guard fields.count == 5, fields[4] == "GMT", let day = Int(fields[0]), let month = month(fields[1]), var year = Int(fields[2])
            else { return nil }
            if fields[2].count == 2 {
                year = fullYear(twoDigits: year, now: now)
            }
            return date(year: year, month: month, day: day, time: fields[3])
        }
        // asctime: `Sun Nov  6 08:49:37 1994`.
        let fields = trimmed.split(separator: " ")
        guard fields.count == 5, let month = month(fields[1]), let day = Int(fields[2]), let year = Int(fields[4]) else { return nil }
        return date(year: year, month: month, day: day, time: fields[3])
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func month(_ name: Substring) -> Int? {
        months.firstIndex(of: name.lowercased()).map { $0 + 1 }
    }

    /// RFC 9110: a two-digit year more than 50 years in the future is taken as the most recent past year with
    /// those digits.
    private static func fullYear(twoDigits: Int, now: Date) -> Int {
        let currentYear = 1970 + Int(now.timeIntervalSince1970 / 31_556_952)
        var year = currentYear - currentYear % 100 + twoDigits
        if year > currentYear + 50 { year -= 100 }
        return year
    }

    private static func date(year: Int, month: Int, day: Int, time: Substring) -> Date? {
        let clock = time.split(separator: ":")
        guard clock.count == 3, let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
            (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second), year >= 1
        else { return nil }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// Days from 1970-01-01 to the given day of the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
