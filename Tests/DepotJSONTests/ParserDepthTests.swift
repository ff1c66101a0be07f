import DepotJSON
import Testing

@Suite("Parser: nesting depth")
struct ParserDepthTests {
    static func nestedArrays(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    static func nestedObjects(_ depth: Int) -> String {
        String(repeating: "{\"a\":", count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
    }

    @Test func defaultLimitIs512() {
        #expect(JSONParser.defaultMaxDepth == 512)
    }

    @Test func exactlyTheLimitParses() throws {
        var value = try JSONParser.parse(Self.nestedArrays(512))
        var depth = 1
        while case .array(let elements) = value, let first = elements.first {
            value = first
            depth += 1
        }
        #expect(depth == 512)
        _ = try JSONParser.parse(Self.nestedObjects(512))
    }

    @Test func oneMoreThanTheLimitFails() {
        #expect(parseError(Self.nestedArrays(513)) == failure(.tooDeep(limit: 512), at: 512))
        #expect(parseError(Self.nestedArrays(513))?.description == "nesting deeper than 512 levels at byte 512")
        // Each `{"a":` is five bytes; the 513th brace is the one that goes too deep.
        #expect(parseError(Self.nestedObjects(513)) == failure(.tooDeep(limit: 512), at: 512 * 5))
    }

    @Test func customLimit() throws {
        _ = try JSONParser.parse("[[[]]]", maxDepth: 3)
        _ = try JSONParser.parse("[{\"a\":[1]},[2]]", maxDepth: 3)
        #expect(parseError("[[[[]]]]", maxDepth: 3) == failure(.tooDeep(limit: 3), at: 3))
        #expect(parseError("[{\"a\":[{}]}]", maxDepth: 3) == failure(.tooDeep(limit: 3), at: 7))
        // Siblings do not add up: only nesting counts.
        _ = try JSONParser.parse("[[1],[2],[3],{\"a\":[]}]", maxDepth: 3)
    }

    @Test func zeroLimitAllowsOnlyScalars() throws {
        #expect(try JSONParser.parse("\"x\"", maxDepth: 0) == "x")
        #expect(parseError("[]", maxDepth: 0) == failure(.tooDeep(limit: 0), at: 0))
        #expect(parseError(" {}", maxDepth: 0) == failure(.tooDeep(limit: 0), at: 1))
    }

    @Test("absurd nesting fails fast without overflowing the stack", arguments: [10_000, 100_000, 1_000_000])
    func absurdNesting(count: Int) {
        #expect(parseError(String(repeating: "[", count: count)) == failure(.tooDeep(limit: 512), at: 512))
        #expect(parseError(String(repeating: "{\"k\":", count: count)) == failure(.tooDeep(limit: 512), at: 512 * 5))
        #expect(parseError(String(repeating: "[{\"k\":", count: count / 2)) == failure(.tooDeep(limit: 512), at: 256 * 6))
    }

    @Test func highLimitStillParsesIteratively() throws {
        // No recursion in the parser: 1,000 levels work when the caller allows them.
        let value = try JSONParser.parse(Self.nestedArrays(1_000), maxDepth: 1_000)
        #expect(value.arrayValue?.count == 1)
    }
}
