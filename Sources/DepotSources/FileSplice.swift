import DepotCore
import DepotPlatform

#if canImport(Glibc)
import Glibc
#endif

/// Writes into a file's text in place: each changed item replaced where it stands, each removed one taken out with
/// the separator that went with it, each new one added after the last in the file's own layout — every other byte
/// stays as it was, so `diff` of the file shows the changed items and nothing else. A plan is worked out from the
/// items and where they stand (`FileLayout`), then the new text is streamed from the old file and the plan's pieces
/// through a buffer that is reused: nothing the size of the file is allocated.
struct FileSplice: Sendable {
    /// Bytes of the old file in `range` replaced by `text`.
    struct Edit: Sendable, Equatable {
        let range: Range<Int>
        let text: [UInt8]
    }

    /// The edits, in order of their place in the old file; none overlap.
    let edits: [Edit]
    /// The items the new file holds, in order.
    let items: ItemCollection
    /// Where they stand in it.
    let layout: FileLayout

    /// The splice that makes `writes` to `items`, which stand in the file as `layout` says. Nil when nothing changes.
    init?(writing writes: [ItemWrite], to items: ItemCollection, layout: FileLayout) {
        let changed = items.applying(writes, placement: .last)
        guard let delta = changed.delta(from: items), !delta.isEmpty else { return nil }
        let style = layout.style
        let removed = Set(delta.removed.compactMap { items.position(of: $0) })
        var replaced: [Int: [UInt8]] = [:]
        for item in delta.changed {
            if let position = items.position(of: item.id) { replaced[position] = style.text(of: item) }
        }
        let count = layout.count
        var edits: [Edit] = []
        var arrivals: [[UInt8]] = []
        var separator = layout.separator
        if let lastSurvivor = (0..<count).reversed().first(where: { !removed.contains($0) }) {
            for index in Set(replaced.keys).union(removed).sorted() where index <= lastSurvivor {
                if let text = replaced[index] {
                    edits.append(Edit(range: layout.span(index), text: text))
                } else {
                    // An item removed before another that stays goes with the separator after it.
                    edits.append(Edit(range: layout.span(index).lowerBound..<layout.span(index + 1).lowerBound, text: []))
                }
            }
            // The items after the last one left go in one piece, with the separator before them.
            let end = layout.span(count - 1).upperBound
            if lastSurvivor < count - 1 {
                edits.append(Edit(range: layout.span(lastSurvivor).upperBound..<end, text: []))
            }
            arrivals = delta.added.map { style.text(of: $0.item) }
            if !arrivals.isEmpty {
                edits.append(Edit(range: end..<end, text: arrivals.flatMap { separator + $0 }))
            }
        } else {
            // Nothing of the old list stays: the new items in depotd's own layout, or an empty array.
            let (defaultSeparator, opening, closing) = FileLayout.depotDefault
            separator = defaultSeparator
            arrivals = delta.added.map(\.item.json)
            let text = arrivals.isEmpty ? [] : opening + Array(arrivals.joined(separator: separator)) + closing
            edits.append(Edit(range: layout.contentStart..<layout.contentEnd, text: text))
        }
        self.edits = edits
        self.items = changed
        // Where the items stand now: the survivors shifted by the edits before them, the replaced ones at their new
        // length, the arrivals where the last edit put them. One pass over the spans.
        var spans: [Int] = []
        spans.reserveCapacity(2 * changed.count)
        var shift = 0
        var next = 0
        for index in 0..<count where !removed.contains(index) {
            let span = layout.span(index)
            while next < edits.count, edits[next].range.upperBound <= span.lowerBound {
                shift += edits[next].text.count - edits[next].range.count
                next += 1
            }
            spans += [span.lowerBound + shift, (replaced[index].map { span.lowerBound + $0.count } ?? span.upperBound) + shift]
        }
        let total = edits.reduce(0) { $0 + $1.text.count - $1.range.count }
        if let last = edits.last, !arrivals.isEmpty {
            var offset = last.range.lowerBound + total - (last.text.count - last.range.count)
            for (index, text) in arrivals.enumerated() {
                offset += spans.isEmpty && index == 0 ? FileLayout.depotDefault.opening.count : separator.count
                spans += [offset, offset + text.count]
                offset += text.count
            }
        }
        self.layout = FileLayout(
            spans: spans, contentStart: layout.contentStart, contentEnd: layout.contentEnd + total, separator: separator,
            style: removed.count == count ? .compact : style)
    }

    /// Hands `emit` the new text, read from the old file `descriptor` (of `size` bytes) with the edits made, in
    /// pieces of at most `buffer.count` bytes (an edit's text longer than that as a piece of its own); false when a
    /// read failed or `emit` refused a piece.
    func stream(from descriptor: Int32, size: Int, through buffer: UnsafeMutableRawBufferPointer, to emit: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        var position = 0
        func copy(upTo end: Int) -> Bool {
            while position < end {
                let count = min(buffer.count, end - position)
                let read = pread(descriptor, buffer.baseAddress, count, off_t(position))
                if read < 0, errno == EINTR { continue }
                guard read > 0 else { return false }
                guard emit(UnsafeRawBufferPointer(rebasing: buffer[0..<read])) else { return false }
                position += read
            }
            return true
        }
        for edit in edits {
            guard copy(upTo: edit.range.lowerBound) else { return false }
            if !edit.text.isEmpty {
                guard edit.text.withUnsafeBytes({ emit($0) }) else { return false }
            }
            position = edit.range.upperBound
        }
        return copy(upTo: size)
    }
}
