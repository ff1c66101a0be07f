extension StringProtocol {
    /// The text without HTTP's optional whitespace (spaces and tabs) around it (RFC 9110 §5.6.3).
    func trimmingOptionalWhitespace() -> SubSequence {
        var text = self[...]
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
