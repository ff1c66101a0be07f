extension Duration {
    /// The whole milliseconds in this duration, the rest dropped: for delays drawn in milliseconds and durations
    /// written for people.
    public var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }

    /// The duration in seconds, fractions included: for dates and figures.
    public var secondsValue: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration for people, to the millisecond, the one way depotd and depotctl write one in a message: `500 ms`
    /// under a second, else seconds without trailing zeros — `2 s`, `2.5 s`, `1.25 s`.
    public var text: String {
        let milliseconds = wholeMilliseconds
        if (1..<1000).contains(milliseconds) { return "\(milliseconds) ms" }
        var fraction = String(milliseconds % 1000 + 1000).dropFirst()
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(milliseconds / 1000)\(fraction.isEmpty ? "" : ".\(fraction)") s"
    }
}
