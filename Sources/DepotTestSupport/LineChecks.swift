package import DepotJSON
package import Testing

// Checks of one encoded JSON line, for the tests of the layers that write lines (DepotRPC, DepotWire).

/// The bytes as text, for messages.
package func text(_ bytes: [UInt8]) -> String {
    String(decoding: bytes, as: UTF8.self)
}

package func parseJSON(_ bytes: some Collection<UInt8>, sourceLocation: SourceLocation = #_sourceLocation) -> JSONValue? {
    do {
        return try JSONParser.parse(Array(bytes))
    } catch {
        Issue.record("not JSON (\(error)): \(String(decoding: Array(bytes), as: UTF8.self))", sourceLocation: sourceLocation)
        return nil
    }
}

/// Checks that `line` is one line, a single `\n` at its end, whose JSON equals `expected` both as a parsed value
/// (member order and number literals included) and byte for byte.
package func expectLine(_ line: [UInt8]?, is expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let line else {
        Issue.record("no response line; expected \(expected)", sourceLocation: sourceLocation)
        return
    }
    #expect(line.last == 0x0A, "a line ends with a newline: \(text(line).debugDescription)", sourceLocation: sourceLocation)
    #expect(line.count(where: { $0 == 0x0A }) == 1, "exactly one newline: \(text(line).debugDescription)", sourceLocation: sourceLocation)
    let body = Array(line.dropLast())
    if let actual = parseJSON(body, sourceLocation: sourceLocation), let wanted = parseJSON(Array(expected.utf8), sourceLocation: sourceLocation) {
        #expect(actual == wanted, sourceLocation: sourceLocation)
    }
    #expect(text(body) == expected, sourceLocation: sourceLocation)
}
