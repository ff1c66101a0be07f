/// The parser's state over one input buffer: integer indices into raw bytes, no per-character work on
/// `String`s. Strings without escapes become a `String` straight from their bytes.
struct JSONParserEngine {
    let bytes: UnsafePointer<UInt8>
    let end: Int
    let maxDepth: Int
    var index = 0
    /// Reused for strings that contain escapes.
    var scratch: [UInt8] = []

    init(bytes: UnsafePointer<UInt8>, end: Int, maxDepth: Int) {
        self.bytes = bytes
        self.end = end
        self.maxDepth = maxDepth
    }

    // MARK: Document

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        if end >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
            index = 3
        }
        skipWhitespace()
        guard index < end else { throw JSONParseError(reason: .empty, offset: index) }
        let value = try parseValue()
        skipWhitespace()
        guard index == end else { throw JSONParseError(reason: .trailingContent, offset: index) }
        return value
    }

    @inline(__always)
    mutating func skipWhitespace() {
        var i = index
        while i < end {
            let byte = bytes[i]
            guard byte <= ASCII.space,
                byte == ASCII.space || byte == ASCII.newline || byte == ASCII.carriageReturn || byte == ASCII.tab
            else { break }
            i &+= 1
        }
        index = i
    }

    // MARK: Values

    /// The arrays and objects opened and not yet closed, innermost last: explicit stacks rather than the call
    /// stack, so nesting costs no recursion.
    struct OpenContainers {
        var arrays: [[JSONValue]] = []
        var objects: [[JSONObject.Member]] = []
        /// The key of the member being parsed in each open object.
        var pendingKeys: [String] = []
        /// For each open container, innermost last: an object (true) or an array.
        var kinds: [Bool] = []

        var depth: Int { kinds.count }
    }

    /// Parses one value starting at `index` (whitespace already skipped). The depth is checked before a
    /// container is opened.
    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        var open = OpenContainers()
        while true {
            guard let value = try beginValue(&open) else { continue }
            if let whole = try finishValue(value, &open) { return whole }
        }
    }

    /// Parses a scalar, or an empty container, and returns it; or opens a non-empty container (and, for an
    /// object, reads its first key) and returns nil: its first element comes next.
    @inline(__always)
    private mutating func beginValue(_ open: inout OpenContainers) throws(JSONParseError) -> JSONValue? {
        guard index < end else { throw JSONParseError(reason: .unexpectedEnd, offset: end) }
        let byte = bytes[index]
        switch byte {
        case ASCII.quote:
            return .string(try parseString())
        case ASCII.openBrace, ASCII.openBracket:
            guard open.depth < maxDepth else { throw JSONParseError(reason: .tooDeep(limit: maxDepth), offset: index) }
            let isObject = byte == ASCII.openBrace
            index &+= 1
            skipWhitespace()
            if index < end && bytes[index] == (isObject ? ASCII.closeBrace : ASCII.closeBracket) {
                index &+= 1
                return isObject ? .object(JSONObject()) : .array([])
            }
            // A little room up front saves the 1-2-4 regrowth most small containers would go through.
            if isObject {
                open.pendingKeys.append(try parseKeyAndColon())
                var members: [JSONObject.Member] = []
                members.reserveCapacity(4)
                open.objects.append(members)
            } else {
                var elements: [JSONValue] = []
                elements.reserveCapacity(4)
                open.arrays.append(elements)
            }
            open.kinds.append(isObject)
            return nil
        case ASCII.minus, ASCII.zero...ASCII.nine:
            return .number(try parseNumber())
        case UInt8(ascii: "t"):
            try parseLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try parseLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try parseLiteral("null")
            return .null
        default:
            throw JSONParseError(reason: .unexpectedCharacter(byte), offset: index)
        }
    }

    /// Hands a finished value to its container; closing a container finishes another value. Returns the whole
    /// value once the outermost one is finished, or nil when a container expects its next element.
    @inline(__always)
    private mutating func finishValue(_ finished: JSONValue, _ open: inout OpenContainers) throws(JSONParseError) -> JSONValue? {
        var value = finished
        while let isObject = open.kinds.last {
            if isObject {
                open.objects[open.objects.count &- 1].append(JSONObject.Member(key: open.pendingKeys.removeLast(), value: value))
            } else {
                open.arrays[open.arrays.count &- 1].append(value)
            }
            skipWhitespace()
            guard index < end else { throw JSONParseError(reason: .unexpectedEnd, offset: end) }
            let separator = bytes[index]
            if separator == ASCII.comma {
                index &+= 1
                skipWhitespace()
                if isObject {
                    open.pendingKeys.append(try parseKeyAndColon())
                }
                return nil
            }
            guard separator == (isObject ? ASCII.closeBrace : ASCII.closeBracket) else {
                throw JSONParseError(reason: .unexpectedCharacter(separator), offset: index)
            }
            index &+= 1
            open.kinds.removeLast()
            value = isObject ? .object(JSONObject(open.objects.removeLast())) : .array(open.arrays.removeLast())
        }
        return value
    }

    /// Parses `"key" :` and the whitespace after it; `index` is at the place the key should start.
    mutating func parseKeyAndColon() throws(JSONParseError) -> String {
        guard index < end else { throw JSONParseError(reason: .unexpectedEnd, offset: end) }
        guard bytes[index] == ASCII.quote else {
            throw JSONParseError(reason: .unexpectedCharacter(bytes[index]), offset: index)
        }
        let key = try parseString()
        skipWhitespace()
        guard index < end else { throw JSONParseError(reason: .unexpectedEnd, offset: end) }
        guard bytes[index] == ASCII.colon else {
            throw JSONParseError(reason: .unexpectedCharacter(bytes[index]), offset: index)
        }
        index &+= 1
        skipWhitespace()
        return key
    }

    /// Matches `true`, `false` or `null` at `index`.
    mutating func parseLiteral(_ literal: StaticString) throws(JSONParseError) {
        let expected = literal.utf8Start
        for k in 0..<literal.utf8CodeUnitCount {
            let i = index &+ k
            guard i < end else { throw JSONParseError(reason: .unexpectedEnd, offset: end) }
            guard bytes[i] == expected[k] else {
                throw JSONParseError(reason: .unexpectedCharacter(bytes[i]), offset: i)
            }
        }
        index &+= literal.utf8CodeUnitCount
    }

    // MARK: Numbers

    /// Checks `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` and keeps the text as it is.
    /// A digit, letter, `.`, `+` or `-` right after a number makes the number invalid (`01`, `0x10`, `1.2.3`)
    /// rather than leaving it for the caller to report as a stray character.
    mutating func parseNumber() throws(JSONParseError) -> JSONNumber {
        let start = index
        let i = try numberEnd()
        index = i
        let literal = String(decoding: UnsafeBufferPointer(start: bytes + start, count: i &- start), as: UTF8.self)
        return JSONNumber(uncheckedLiteral: literal)
    }

    /// Where the number starting at `index` ends, once it is checked (see `parseNumber`); `index` stays.
    @inline(__always)
    func numberEnd() throws(JSONParseError) -> Int {
        var i = index
        if bytes[i] == ASCII.minus { i &+= 1 }
        guard i < end else { throw JSONParseError(reason: .invalidNumber, offset: i) }
        let first = bytes[i]
        if first == ASCII.zero {
            i &+= 1
        } else if first >= ASCII.one && first <= ASCII.nine {
            i &+= 1
            i = skipDigits(from: i)
        } else {
            throw JSONParseError(reason: .invalidNumber, offset: i)
        }
        if i < end && bytes[i] == ASCII.period {
            let digitsStart = i &+ 1
            i = skipDigits(from: digitsStart)
            guard i > digitsStart else { throw JSONParseError(reason: .invalidNumber, offset: i) }
        }
        if i < end && (bytes[i] | 0x20) == UInt8(ascii: "e") {
            i &+= 1
            if i < end && (bytes[i] == ASCII.plus || bytes[i] == ASCII.minus) { i &+= 1 }
            let digitsStart = i
            i = skipDigits(from: digitsStart)
            guard i > digitsStart else { throw JSONParseError(reason: .invalidNumber, offset: i) }
        }
        if i < end {
            let next = bytes[i]
            let lower = next | 0x20
            if (next >= ASCII.zero && next <= ASCII.nine) || (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z"))
                || next == ASCII.period || next == ASCII.plus || next == ASCII.minus
            {
                throw JSONParseError(reason: .invalidNumber, offset: i)
            }
        }
        return i
    }

    @inline(__always)
    func skipDigits(from start: Int) -> Int {
        var i = start
        while i < end && bytes[i] &- ASCII.zero < 10 { i &+= 1 }
        return i
    }

    // MARK: Strings

    /// Parses the string whose opening quote is at `index`.
    mutating func parseString() throws(JSONParseError) -> String {
        try withStringContent { String(decoding: $0, as: UTF8.self) }
    }

    /// Reads the string whose opening quote is at `index`, checked, and hands its content decoded (as UTF-8) to `body`:
    /// the input's own bytes when it has no escape, else the escapes decoded into `scratch`.
    @inline(__always)
    mutating func withStringContent<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) throws(JSONParseError) -> Result {
        let start = index &+ 1
        var i = try scanStringContent(from: start)
        if bytes[i] == ASCII.quote {
            index = i &+ 1
            return body(UnsafeBufferPointer(start: bytes + start, count: i &- start))
        }
        // Slow path: at least one backslash. Copy unescaped runs in bulk, decode escapes in between.
        scratch.removeAll(keepingCapacity: true)
        var runStart = start
        repeat {
            scratch.append(contentsOf: UnsafeBufferPointer(start: bytes + runStart, count: i &- runStart))
            i = try decodeEscape(at: i)
            runStart = i
            i = try scanStringContent(from: i)
        } while bytes[i] != ASCII.quote
        scratch.append(contentsOf: UnsafeBufferPointer(start: bytes + runStart, count: i &- runStart))
        index = i &+ 1
        return scratch.withUnsafeBufferPointer(body)
    }

    /// Returns the index of the next `"` or `\` at or after `start`, checking on the way that the bytes are
    /// well-formed UTF-8 without raw control characters. Eight plain ASCII bytes are skipped at a time.
    @inline(__always)
    func scanStringContent(from start: Int) throws(JSONParseError) -> Int {
        var i = start
        while true {
            while end &- i >= 8 {
                let word = UnsafeRawPointer(bytes + i).loadUnaligned(as: UInt64.self)
                if Self.mayNeedAttention(word) { break }
                i &+= 8
            }
            guard i < end else { throw JSONParseError(reason: .unexpectedEnd, offset: end) }
            let byte = bytes[i]
            if byte == ASCII.quote || byte == ASCII.backslash { return i }
            if byte < 0x20 { throw JSONParseError(reason: .controlCharacterInString, offset: i) }
            if byte < 0x80 {
                i &+= 1
            } else {
                i &+= try utf8SequenceLength(at: i)
            }
        }
    }

    /// True when any of the eight bytes is `"`, `\`, below 0x20 or at least 0x80 (never misses one; a false
    /// alarm only sends the scanner down the byte-by-byte path).
    @inline(__always)
    static func mayNeedAttention(_ word: UInt64) -> Bool {
        (ASCII.quoteBackslashOrControlBits(word) | word & 0x8080_8080_8080_8080) != 0
    }

    /// The length of the well-formed UTF-8 sequence whose lead byte (≥ 0x80) is at `i` (Unicode table 3-7:
    /// no overlongs, no encoded surrogates, nothing above U+10FFFF).
    @inline(__always)
    func utf8SequenceLength(at i: Int) throws(JSONParseError) -> Int {
        let lead = bytes[i]
        let length: Int
        var secondLow: UInt8 = 0x80
        var secondHigh: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF:
            length = 2
        case 0xE0:
            length = 3
            secondLow = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF:
            length = 3
        case 0xED:
            length = 3
            secondHigh = 0x9F
        case 0xF0:
            length = 4
            secondLow = 0x90
        case 0xF1...0xF3:
            length = 4
        case 0xF4:
            length = 4
            secondHigh = 0x8F
        default:
            throw JSONParseError(reason: .invalidUTF8, offset: i)
        }
        for k in 1..<length {
            let position = i &+ k
            guard position < end else { throw JSONParseError(reason: .unexpectedEnd, offset: end) }
            let byte = bytes[position]
            let low = k == 1 ? secondLow : 0x80
            let high = k == 1 ? secondHigh : 0xBF
            guard byte >= low && byte <= high else { throw JSONParseError(reason: .invalidUTF8, offset: i) }
        }
        return length
    }

    /// Decodes the escape whose backslash is at `i` into `scratch` and returns the index after it.
    mutating func decodeEscape(at i: Int) throws(JSONParseError) -> Int {
        guard i &+ 1 < end else { throw JSONParseError(reason: .unexpectedEnd, offset: end) }
        let decoded: UInt8
        switch bytes[i &+ 1] {
        case ASCII.quote: decoded = ASCII.quote
        case ASCII.backslash: decoded = ASCII.backslash
        case ASCII.slash: decoded = ASCII.slash
        case UInt8(ascii: "b"): decoded = 0x08
        case UInt8(ascii: "f"): decoded = 0x0C
        case UInt8(ascii: "n"): decoded = ASCII.newline
        case UInt8(ascii: "r"): decoded = ASCII.carriageReturn
        case UInt8(ascii: "t"): decoded = ASCII.tab
        case UInt8(ascii: "u"):
            return try decodeUnicodeEscape(at: i)
        default:
            throw JSONParseError(reason: .invalidEscape, offset: i)
        }
        scratch.append(decoded)
        return i &+ 2
    }

    /// Decodes `\uXXXX` (and its `\uXXXX` low half when it is a high surrogate) at `i` into `scratch` as UTF-8.
    mutating func decodeUnicodeEscape(at i: Int) throws(JSONParseError) -> Int {
        let unit = try hexQuad(at: i &+ 2, escapeAt: i)
        var next = i &+ 6
        let scalar: UInt32
        switch unit {
        case 0xD800...0xDBFF:
            guard next < end else { throw JSONParseError(reason: .unexpectedEnd, offset: end) }
            guard bytes[next] == ASCII.backslash else { throw JSONParseError(reason: .loneSurrogate, offset: i) }
            guard next &+ 1 < end else { throw JSONParseError(reason: .unexpectedEnd, offset: end) }
            guard bytes[next &+ 1] == UInt8(ascii: "u") else {
                throw JSONParseError(reason: .loneSurrogate, offset: i)
            }
            let low = try hexQuad(at: next &+ 2, escapeAt: next)
            guard low >= 0xDC00 && low <= 0xDFFF else { throw JSONParseError(reason: .loneSurrogate, offset: i) }
            scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            next &+= 6
        case 0xDC00...0xDFFF:
            throw JSONParseError(reason: .loneSurrogate, offset: i)
        default:
            scalar = unit
        }
        appendUTF8(scalar)
        return next
    }

    /// Four hex digits at `start`, for the escape whose backslash is at `escapeAt`.
    @inline(__always)
    func hexQuad(at start: Int, escapeAt: Int) throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for k in 0..<4 {
            let position = start &+ k
            guard position < end else { throw JSONParseError(reason: .unexpectedEnd, offset: end) }
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case ASCII.zero...ASCII.nine: digit = byte &- ASCII.zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
            default: throw JSONParseError(reason: .invalidEscape, offset: escapeAt)
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Appends a scalar value (never a surrogate) to `scratch` as UTF-8.
    mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(truncatingIfNeeded: scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(truncatingIfNeeded: 0xC0 | scalar >> 6))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(truncatingIfNeeded: 0xE0 | scalar >> 12))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(truncatingIfNeeded: 0xF0 | scalar >> 18))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(truncatingIfNeeded: 0x80 | scalar & 0x3F))
        }
    }
}
