/// Applying a delta — the ids that went, the elements that changed in place, the elements that came with their index
/// — to a list, whatever its elements: the daemon's items (`ItemDelta`) or a client's JSON values (`WireDelta`). The
/// one definition of applying a delta, shared by both sides of the socket.
public enum DeltaApplication {
    /// How a delta does not fit the elements it is applied to.
    public enum Misfit: Error, Equatable, Sendable {
        /// It removes an id the elements lack.
        case removesAbsent
        /// It changes an element whose id the elements lack.
        case changesAbsent
        /// It adds an element at `index`, past the end of the `count` elements there are then.
        case addsPastEnd(index: Int, count: Int)
    }

    /// `base` with the delta applied, each element's id read by `id` (an element without one is kept, and is never
    /// the one changed): drop `removed`, replace each `changed` element where the element with its id stands, insert
    /// each `added` one at its index, in order.
    public static func apply<Element>(
        removed: [String], changed: [Element], added: [(index: Int, item: Element)], to base: [Element], id: (Element) -> String?
    ) -> Result<[Element], Misfit> {
        let removedIDs = Set(removed)
        var elements = base.filter { id($0).map { !removedIDs.contains($0) } ?? true }
        guard elements.count == base.count - removedIDs.count else { return .failure(.removesAbsent) }
        if !changed.isEmpty {
            var positions: [String: Int] = [:]
            for (index, element) in elements.enumerated() {
                if let elementID = id(element) { positions[elementID] = index }
            }
            for element in changed {
                guard let elementID = id(element), let position = positions[elementID] else { return .failure(.changesAbsent) }
                elements[position] = element
            }
        }
        for (index, element) in added {
            guard index <= elements.count else { return .failure(.addsPastEnd(index: index, count: elements.count)) }
            elements.insert(element, at: index)
        }
        return .success(elements)
    }
}
