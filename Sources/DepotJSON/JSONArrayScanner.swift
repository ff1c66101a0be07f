/// Reads a JSON array element by element without building values: each element is checked as the parser checks it
/// and copied in compact form — exactly the bytes `JSONParser.parse` then `jsonBytes` would give (whitespace dropped,
/// strings escaped as the writer escapes them, members in order, number literals as written) — with where it stands
/// in the input, and the value of one member of its own picked out (an item's id). A file of a million items, pretty
/// printed or not, is read in one pass that allocates only the elements' compact bytes.
///
/// Where it stands matters to whoever writes the text back: an element can be replaced or removed in place, leaving
/// every other byte — a person's layout — as it was (`FileSource`).
public enum JSONArrayScanner {
    /// One element of the array.
    public struct Element {
        /// The element as compact JSON.
        public let compact: [UInt8]
        /// Where it is in the input: from its first byte to the byte after its last.
        public let span: Range<Int>
        /// Where the captured member's value is in `compact`; nil when the element is not an object or has no such
        /// member (the last one counts when it repeats, as lookups do).
        public let captured: Range<Int>?
        /// Whether the element is an object.
        public let isObject: Bool
    }

    /// Where the array's brackets are: the offset after `[` and the offset of `]`.
    public struct Bounds: Sendable, Equatable {
        public let contentStart: Int
        public let contentEnd: Int
    }

    /// Scans `input`, which must hold one JSON array (a UTF-8 byte order mark and whitespace around it allowed), and
    /// hands each element to `element` in order, capturing the member named `member`; `element` answers false to stop
    /// (then nil is returned). Throws as the parser would for input that is not JSON; an input whose value is not an
    /// array returns nil too.
    public static func scan(
        _ input: UnsafeRawBufferPointer, capturing member: String, maxDepth: Int = JSONParser.defaultMaxDepth, _ element: (Element) -> Bool
    ) throws(JSONParseError) -> Bounds? {
        guard let base = input.baseAddress, input.count > 0 else { throw JSONParseError(reason: .empty, offset: 0) }
        var engine = JSONParserEngine(bytes: base.assumingMemoryBound(to: UInt8.self), end: input.count, maxDepth: maxDepth)
        var memberKey: [UInt8] = []
        JSONWriter.writeString(member, to: &memberKey)
        return try engine.scanArray(memberKey: memberKey, element)
    }
}

extension JSONParserEngine {
    /// The array's elements, as `JSONArrayScanner.scan` says.
    fileprivate mutating func scanArray(
        memberKey: [UInt8], _ element: (JSONArrayScanner.Element) -> Bool
    ) throws(JSONParseError)
        -> JSONArrayScanner.Bounds?
    {
        if end >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
            index = 3
        }
        skipWhitespace()
        guard index < end else { throw JSONParseError(reason: .empty, offset: index) }
        guard bytes[index] == ASCII.openBracket else { return nil }
        index &+= 1
        let contentStart = index
        skipWhitespace()
        var contentEnd = index
        if index < end && bytes[index] == ASCII.closeBracket {
            index &+= 1
        } else {
            var compact: [UInt8] = []
            while true {
                let start = index
                compact.reserveCapacity(256)
                let (captured, isObject) = try copyElement(into: &compact, memberKey: memberKey)
                guard element(JSONArrayScanner.Element(compact: compact, span: start..<index, captured: captured, isObject: isObject)) else {
                    return nil
                }
                compact = []
                skipWhitespace()
                guard index < end else { throw JSONParseError(reason: .unexpectedEnd, offset: end) }
                if bytes[index] == ASCII.comma {
                    index &+= 1
                    skipWhitespace()
                    continue
                }
                guard bytes[index] == ASCII.closeBracket else { throw JSONParseError(reason: .unexpectedCharacter(bytes[index]), offset: index) }
                contentEnd = index
                index &+= 1
                break
            }
        }
        skipWhitespace()
        guard index == end else { throw JSONParseError(reason: .trailingContent, offset: index) }
        return JSONArrayScanner.Bounds(contentStart: contentStart, contentEnd: contentEnd)
    }

    /// Copies the value at `index` (an element of the top-level array, at depth 2) into `output` in compact form, and
    /// says where its member `memberKey` (its name as an escaped JSON string) is in `output`, when it is an object.
    private mutating func copyElement(
        into output: inout [UInt8], memberKey: [UInt8]
    ) throws(JSONParseError) -> (captured: Range<Int>?, isObject: Bool) {
        guard index < end else { throw JSONParseError(reason: .unexpectedEnd, offset: end) }
        let isObject = bytes[index] == ASCII.openBrace
        // Open containers, innermost last: true for an object. The element's own object is the first.
        var open: [Bool] = []
        var captured: Range<Int>?
        /// Whether the value about to be copied is a member of the element's own object named `memberKey`.
        var capturing = false
        while true {
            // A value begins.
            guard index < end else { throw JSONParseError(reason: .unexpectedEnd, offset: end) }
            let valueStart = output.count
            let byte = bytes[index]
            var finished = true
            switch byte {
            case ASCII.quote:
                try copyString(into: &output)
            case ASCII.openBrace, ASCII.openBracket:
                // The top-level array is level 1.
                guard open.count &+ 1 < maxDepth else { throw JSONParseError(reason: .tooDeep(limit: maxDepth), offset: index) }
                let opensObject = byte == ASCII.openBrace
                output.append(byte)
                index &+= 1
                skipWhitespace()
                if index < end && bytes[index] == (opensObject ? ASCII.closeBrace : ASCII.closeBracket) {
                    output.append(bytes[index])
                    index &+= 1
                } else {
                    open.append(opensObject)
                    if opensObject {
                        capturing = try copyKeyAndColon(into: &output, matching: open.count == 1 ? memberKey : nil)
                    }
                    finished = false
                }
            case ASCII.minus, ASCII.zero...ASCII.nine:
                let numberEnd = try numberEnd()
                output.append(contentsOf: UnsafeBufferPointer(start: bytes + index, count: numberEnd &- index))
                index = numberEnd
            case UInt8(ascii: "t"):
                try parseLiteral("true")
                output.append(contentsOf: "true".utf8)
            case UInt8(ascii: "f"):
                try parseLiteral("false")
                output.append(contentsOf: "false".utf8)
            case UInt8(ascii: "n"):
                try parseLiteral("null")
                output.append(contentsOf: "null".utf8)
            default:
                throw JSONParseError(reason: .unexpectedCharacter(byte), offset: index)
            }
            guard finished else { continue }
            if capturing, open.count == 1 {
                captured = valueStart..<output.count
                capturing = false
            }
            // A value is done: the next of its container, or the containers it closes.
            while let opensObject = open.last {
                skipWhitespace()
                guard index < end else { throw JSONParseError(reason: .unexpectedEnd, offset: end) }
                let separator = bytes[index]
                if separator == ASCII.comma {
                    output.append(ASCII.comma)
                    index &+= 1
                    skipWhitespace()
                    if opensObject {
                        capturing = try copyKeyAndColon(into: &output, matching: open.count == 1 ? memberKey : nil)
                    }
                    break
                }
                guard separator == (opensObject ? ASCII.closeBrace : ASCII.closeBracket) else {
                    throw JSONParseError(reason: .unexpectedCharacter(separator), offset: index)
                }
                output.append(separator)
                index &+= 1
                open.removeLast()
            }
            if open.isEmpty { return (captured, isObject) }
        }
    }

    /// Copies `"key":` (the whitespace around the colon dropped); true when the key is `matching`, an escaped name.
    private mutating func copyKeyAndColon(into output: inout [UInt8], matching name: [UInt8]?) throws(JSONParseError) -> Bool {
        guard index < end else { throw JSONParseError(reason: .unexpectedEnd, offset: end) }
        guard bytes[index] == ASCII.quote else { throw JSONParseError(reason: .unexpectedCharacter(bytes[index]), offset: index) }
        let keyStart = output.count
        try copyString(into: &output)
        let matches = name.map { output[keyStart...].elementsEqual($0) } ?? false
        skipWhitespace()
        guard index < end else { throw JSONParseError(reason: .unexpectedEnd, offset: end) }
        guard bytes[index] == ASCII.colon else { throw JSONParseError(reason: .unexpectedCharacter(bytes[index]), offset: index) }
        output.append(ASCII.colon)
        index &+= 1
        skipWhitespace()
        return matches
    }

    /// Copies the string at `index`, checked, escaped as the writer escapes it. Most strings hold nothing the writer
    /// escapes (no backslash, no control character, no U+2028 or U+2029): they are copied as they stand, quotes
    /// included, in one piece, rather than decoded and escaped again.
    @inline(__always)
    private mutating func copyString(into output: inout [UInt8]) throws(JSONParseError) {
        let close = try scanStringContent(from: index &+ 1)
        if bytes[close] == ASCII.quote, holdsNoLineSeparator(from: index &+ 1, to: close) {
            output.append(contentsOf: UnsafeBufferPointer(start: bytes + index, count: close &+ 1 &- index))
            index = close &+ 1
            return
        }
        try withStringContent { JSONWriter.writeEscaped($0, to: &output) }
    }

    /// Whether the checked string content from `start` to `close` holds neither U+2028 nor U+2029, which the writer
    /// escapes (their UTF-8 begins with 0xE2). Eight ASCII bytes are passed at a time.
    @inline(__always)
    private func holdsNoLineSeparator(from start: Int, to close: Int) -> Bool {
        var i = start
        while close &- i >= 8 {
            if UnsafeRawPointer(bytes + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
            i &+= 8
        }
        while i < close {
            if bytes[i] == 0xE2 { return false }
            i &+= 1
        }
        return true
    }
}
