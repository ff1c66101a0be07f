/// A JSON number literal as an exact decimal: sign, significant digits and a power of ten. Schemas compare
/// numbers with it (and predicates compare them) instead of `Double`, so `12345678901234567891 > 12345678901234567890` and
/// `0.1 + 0.2`-style rounding never decide whether an instance is valid.
///
/// Exact for every literal whose exponent is within ±10^15 (the exponent is clamped there, so two numbers
/// beyond that, such as `1e10000000000000000` and `1e20000000000000000`, compare as equal); no parseable
/// document has numbers anywhere near that large.
public struct DecimalNumber: Sendable, Comparable {
    /// True for negative non-zero numbers (`-0` is zero).
    public let isNegative: Bool
    /// The significant digits without leading or trailing zeros, as ASCII values; empty for zero.
    public let digits: [UInt8]
    /// The value is `0.d1d2d3… × 10^exponent`: the number of digits before the decimal point.
    public let exponent: Int

    private static let exponentLimit = 1_000_000_000_000_000

    public init(_ number: JSONNumber) {
        var bytes = Array(number.literal.utf8)[...]
        var negative = false
        if bytes.first == UInt8(ascii: "-") {
            negative = true
            bytes = bytes.dropFirst()
        }
        var mantissa: [UInt8] = []
        var pointPosition: Int?
        var explicitExponent = 0
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                pointPosition = mantissa.count
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                explicitExponent = Self.parseExponent(bytes[(index + 1)...])
                break
            } else {
                mantissa.append(byte)
            }
            index += 1
        }
        // Value = 0.mantissa × 10^(digits before the point + explicit exponent).
        var exponent = (pointPosition ?? mantissa.count) + explicitExponent
        let leadingZeros = mantissa.prefix(while: { $0 == UInt8(ascii: "0") }).count
        mantissa.removeFirst(leadingZeros)
        exponent -= leadingZeros
        while mantissa.last == UInt8(ascii: "0") { mantissa.removeLast() }
        self.digits = mantissa
        self.isNegative = negative && !mantissa.isEmpty
        self.exponent = mantissa.isEmpty ? 0 : exponent
    }

    public var isZero: Bool { digits.isEmpty }

    /// A decimal exponent, clamped to ±`exponentLimit` so that absurd ones cannot overflow.
    private static func parseExponent(_ bytes: ArraySlice<UInt8>) -> Int {
        var bytes = bytes
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        var value = 0
        for byte in bytes {
            value = min(value * 10 + Int(byte - UInt8(ascii: "0")), exponentLimit)
        }
        return negative ? -value : value
    }

    public static func == (lhs: DecimalNumber, rhs: DecimalNumber) -> Bool {
        lhs.isNegative == rhs.isNegative && lhs.exponent == rhs.exponent && lhs.digits == rhs.digits
    }

    public static func < (lhs: DecimalNumber, rhs: DecimalNumber) -> Bool {
        if lhs.isNegative != rhs.isNegative { return lhs.isNegative }
        // Same sign: compare magnitudes, reversed for negatives.
        let magnitude = compareMagnitudes(lhs, rhs)
        return lhs.isNegative ? magnitude > 0 : magnitude < 0
    }

    /// -1, 0 or 1 as |lhs| is less than, equal to or greater than |rhs|.
    private static func compareMagnitudes(_ lhs: DecimalNumber, _ rhs: DecimalNumber) -> Int {
        if lhs.isZero || rhs.isZero {
            return lhs.isZero == rhs.isZero ? 0 : (lhs.isZero ? -1 : 1)
        }
        if lhs.exponent != rhs.exponent { return lhs.exponent < rhs.exponent ? -1 : 1 }
        for (left, right) in zip(lhs.digits, rhs.digits) where left != right {
            return left < right ? -1 : 1
        }
        return lhs.digits.count == rhs.digits.count ? 0 : (lhs.digits.count < rhs.digits.count ? -1 : 1)
    }

    /// Whether the value is a whole number (`2`, `2.0`, `2.5e1`).
    public var isIntegral: Bool {
        isZero || exponent >= digits.count
    }

    /// The value as an `Int` when it is a whole number that fits; `Int.max` for a larger positive one.
    public var integerValue: Int? {
        guard isIntegral, !isNegative else { return isIntegral && isZero ? 0 : nil }
        guard exponent <= 18 else { return Int.max }
        var value = 0
        for position in 0..<exponent {
            value = value * 10 + (position < digits.count ? Int(digits[position] - UInt8(ascii: "0")) : 0)
        }
        return value
    }

    /// Whether `self` divided by `divisor` (not zero) is a whole number, computed exactly on the digits.
    ///
    /// With self = m × 10^a and divisor = n × 10^b (m, n whole): for a ≥ b, n must divide m × 10^(a−b), and a
    /// power of ten beyond n's own factors of 2 and 5 (at most 4 per digit of n) changes nothing, so the
    /// exponent is capped there; for a < b, n × 10^(b−a) must divide m, impossible once it has more digits.
    public func isMultiple(of divisor: DecimalNumber) -> Bool {
        guard !divisor.isZero else { return false }
        if isZero { return true }
        let m = digits, n = divisor.digits
        let a = exponent - digits.count, b = divisor.exponent - divisor.digits.count
        if a >= b {
            let shift = min(a - b, 4 * n.count + 4)
            return Self.remainder(m + [UInt8](repeating: UInt8(ascii: "0"), count: shift), n) == 0
        }
        let shift = b - a
        guard shift <= m.count else { return false }
        return Self.remainder(m, n + [UInt8](repeating: UInt8(ascii: "0"), count: shift)) == 0
    }

    /// 0 when the whole number with decimal digits `dividend` is a multiple of the one with digits `divisor`;
    /// otherwise a positive number. Long division on digits, so any size works.
    private static func remainder(_ dividend: [UInt8], _ divisor: [UInt8]) -> Int {
        let divisorDigits = divisor.map { Int($0 - UInt8(ascii: "0")) }
        var remainder: [Int] = []
        for digit in dividend {
            remainder.append(Int(digit - UInt8(ascii: "0")))
            while remainder.first == 0 { remainder.removeFirst() }
            while compare(remainder, divisorDigits) >= 0 {
                remainder = subtract(remainder, divisorDigits)
            }
        }
        return remainder.isEmpty ? 0 : 1
    }

    /// -1, 0 or 1 comparing two whole numbers given as digits without leading zeros.
    private static func compare(_ lhs: [Int], _ rhs: [Int]) -> Int {
        if lhs.count != rhs.count { return lhs.count < rhs.count ? -1 : 1 }
        for (left, right) in zip(lhs, rhs) where left != right {
            return left < right ? -1 : 1
        }
        return 0
    }

    /// `lhs - rhs` for `lhs >= rhs`, as digits without leading zeros.
    private static func subtract(_ lhs: [Int], _ rhs: [Int]) -> [Int] {
        var result = lhs
        var borrow = 0
        for offset in 0..<lhs.count {
            let index = lhs.count - 1 - offset
            let subtrahend = (offset < rhs.count ? rhs[rhs.count - 1 - offset] : 0) + borrow
            if result[index] < subtrahend {
                result[index] += 10 - subtrahend
                borrow = 1
            } else {
                result[index] -= subtrahend
                borrow = 0
            }
        }
        return Array(result.drop(while: { $0 == 0 }))
    }
}
