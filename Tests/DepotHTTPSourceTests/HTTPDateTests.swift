import Foundation
import Testing

@testable import DepotHTTPSource

@Suite("HTTPDate: the three forms RFC 9110 says a recipient must read")
struct HTTPDateTests {
    /// 1994-11-06T08:49:37Z, the RFC's own example.
    static let example = Date(timeIntervalSince1970: 784_111_777)

    @Test(
        "IMF-fixdate, RFC 850 and asctime name the same instant",
        arguments: [
            "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "  Sun, 06 Nov 1994 08:49:37 GMT ",
        ])
    func forms(_ text: String) {
        #expect(HTTPDate.parse(text, now: Date(timeIntervalSince1970: 1_800_000_000)) == Self.example)
    }

    @Test("a two-digit year more than 50 years ahead is the last century's")
    func twoDigitYears() {
        let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18
        #expect(HTTPDate.parse("Saturday, 01-Jan-77 00:00:00 GMT", now: now) == Date(timeIntervalSince1970: 220_924_800), "2077 is too far: 1977")
        #expect(HTTPDate.parse("Wednesday, 01-Jan-70 00:00:00 GMT", now: now) == Date(timeIntervalSince1970: 3_155_760_000), "2070 is not")
    }

    @Test(
        "leap days and the end of a year",
        arguments: [("Tue, 29 Feb 2028 12:00:00 GMT", 1_835_438_400.0), ("Fri, 31 Dec 1999 23:59:59 GMT", 946_684_799.0)])
    func calendar(_ text: String, _ seconds: Double) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: seconds))
    }

    @Test(
        "what is not an HTTP date is nil",
        arguments: [
            "0", "-1", "", "tomorrow", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 25:00:00 GMT", "Sun, 06 Nov 1994 08:49 GMT",
        ])
    func invalid(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}
