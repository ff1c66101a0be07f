import DepotCore
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
}
