import DepotPlatform
import Foundation
import Testing

@Suite("RFC3339: fetch times as the protocol writes them")
struct RFC3339Tests {
    @Test(
        "UTC, milliseconds, to the nearest millisecond",
        arguments: [
            (0.0, "1970-01-01T00:00:00.000Z"),
            (1_763_757_709.123, "2025-11-21T20:41:49.123Z"),
            (1_763_757_709.1236, "2025-11-21T20:41:49.124Z"),
            (1_763_757_709.9996, "2025-11-21T20:41:50.000Z"),
            (951_782_400.5, "2000-02-29T00:00:00.500Z"),
            (-0.25, "1969-12-31T23:59:59.750Z"),
        ])
    func format(seconds: Double, text: String) {
        #expect(RFC3339.string(from: Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test("read back: what string(from:) writes, to the millisecond; a fraction of any length, or none")
    func parse() {
        for seconds in [0.0, 1_763_757_709.123, 951_782_400.5, -0.25] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(RFC3339.date(from: RFC3339.string(from: date)) == date)
        }
        #expect(RFC3339.date(from: "2025-11-21T20:41:49Z") == Date(timeIntervalSince1970: 1_763_757_709))
        #expect(RFC3339.date(from: "2025-11-21T20:41:49.5Z") == Date(timeIntervalSince1970: 1_763_757_709.5))
    }

    @Test(
        "anything else is nil",
        arguments: [
            "", "2025-11-21", "2025-11-21T20:41:49", "2025-11-21T20:41:49+01:00", "2025-11-21 20:41:49Z", "x025-11-21T20:41:49Z",
            "2025-11-21T20:41:49.Z",
        ])
    func invalid(_ text: String) {
        #expect(RFC3339.date(from: text) == nil)
    }
}
