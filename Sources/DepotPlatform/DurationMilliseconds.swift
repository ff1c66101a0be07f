extension Duration {
    /// The whole milliseconds in this duration, the rest dropped: for delays drawn in milliseconds and durations
    /// written for people.
    public var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
