import DepotJSON
import DepotTestSupport
import Foundation
import Testing

/// Random strings and bytes through the writer and back through the parser: whatever a string holds — quotes,
/// backslashes, control characters, U+2028/U+2029, characters beyond the BMP, text made from invalid UTF-8 —
/// it must come back exactly, as one valid JSON string with no raw control character in it.
@Suite("Writer escaping, fuzzed")
struct WriterEscapingFuzzTests {
    /// Seeds are fixed, so a failure replays; `DEPOT_FUZZ_ROUNDS` raises the rounds for a longer run, and
    /// `DEPOT_FUZZ_SEED` explores from another seed (a failure's message names the round to replay).
    static let rounds = ProcessInfo.environmentInteger("DEPOT_FUZZ_ROUNDS") ?? 20_000
    static let seed = UInt64(ProcessInfo.environmentInteger("DEPOT_FUZZ_SEED") ?? 0x5EED_0000)

    /// Characters the escaping must get right, drawn more often than chance would.
    static let tricky: [Unicode.Scalar] = [
        "\"", "\\", "/", "\u{0}", "\u{1}", "\u{8}", "\u{9}", "\u{A}", "\u{C}", "\u{D}", "\u{1F}", "\u{7F}", "\u{80}",
        "\u{2028}", "\u{2029}", "\u{FEFF}", "\u{FFFD}", "\u{FFFF}", "\u{1F600}", "\u{10FFFF}", "é", "€",
    ]

    static func randomScalar(_ random: inout SplitMix64) -> Unicode.Scalar {
        switch random.next() % 4 {
        case 0: return tricky[Int(random.next() % UInt64(tricky.count))]
        case 1: return Unicode.Scalar(UInt8(random.next() % 0x80))
        default:
            while true {
                // Any scalar: the surrogate range is not one, so it is drawn again.
                if let scalar = Unicode.Scalar(UInt32(random.next() % 0x11_0000)) { return scalar }
            }
        }
    }

    static func roundTrip(_ string: String) throws -> (text: [UInt8], back: JSONValue) {
        var bytes: [UInt8] = []
        JSONWriter.writeString(string, to: &bytes)
        return (bytes, try JSONParser.parse(bytes))
    }

    @Test("random Unicode strings come back exactly")
    func randomStrings() throws {
        var random = SplitMix64(seed: Self.seed &+ 1)
        for round in 0..<Self.rounds {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<(random.next() % 40) { scalars.append(Self.randomScalar(&random)) }
            let string = String(scalars)
            let (text, back) = try Self.roundTrip(string)
            try #require(back == .string(string), "round \(round): \(string.debugDescription) came back as \(back)")
            #expect(
                !text.contains { $0 < 0x20 }, "round \(round): a raw control character in \(String(decoding: text, as: UTF8.self).debugDescription)")
            #expect(String(validating: text, as: UTF8.self) != nil, "round \(round): the written text is valid UTF-8")
        }
    }

    @Test("strings made from random bytes (invalid UTF-8 becomes U+FFFD) come back exactly")
    func randomBytes() throws {
        var random = SplitMix64(seed: Self.seed &+ 2)
        for round in 0..<Self.rounds {
            let bytes = (0..<(random.next() % 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let string = String(decoding: bytes, as: UTF8.self)
            let (_, back) = try Self.roundTrip(string)
            try #require(back == .string(string), "round \(round): bytes \(bytes) came back as \(back)")
        }
    }

    @Test("U+2028 and U+2029 are written escaped, so the line stays one line for JavaScript readers too")
    func lineSeparators() throws {
        let (text, _) = try Self.roundTrip("a\u{2028}b\u{2029}c")
        #expect(String(decoding: text, as: UTF8.self) == #""a\u2028b\u2029c""#)
    }
}

extension ProcessInfo {
    /// An integer from the environment, when set and valid.
    static func environmentInteger(_ name: String) -> Int? {
        processInfo.environment[name].flatMap(Int.init)
    }
}
