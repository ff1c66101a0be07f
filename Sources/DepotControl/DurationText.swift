/// Durations as people type them on a command line: `1.5` (seconds), `500ms`, `2s`, `1m`, `1h`.
enum DurationText {
    /// The seconds `text` names, or nil when it is not a positive duration.
    static func seconds(_ text: String) -> Double? {
        let units: [(suffix: String, factor: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        var number = Substring(text)
        var factor = 1.0
        for unit in units where text.hasSuffix(unit.suffix) {
            number = text.dropLast(unit.suffix.count)
            factor = unit.factor
            break
        }
        guard let value = Double(number), value > 0, value.isFinite else { return nil }
        return value * factor
    }
}
