import CAllocator

/// What the C allocator does with memory depotd frees. depotd's large blocks are encoded states and long lines, which
/// come and go; kept in the heap after they are freed they would hold the RSS at its peak, so a burst (one user's
/// connections cut off at their memory bound, say) would look like a leak and never come back.
public enum FreedMemory {
    /// Blocks of at least this many bytes get a mapping of their own, given back when freed: 128 KiB, twice the
    /// largest buffer a socket read takes, so reads stay in the heap and states and long lines do not.
    public static let threshold = 128 << 10

    /// Returns blocks of `threshold` bytes or more to the system as soon as they are freed; false where the
    /// allocator has no such setting.
    @discardableResult
    public static func returnLargeBlocks() -> Bool {
        depot_return_large_blocks(threshold) != 0
    }

    /// Gives back the free memory the allocator keeps in its heaps: the smaller blocks a burst left there, freed but
    /// scattered among blocks still in use, which it would otherwise keep (as measured: 300 MiB after a thousand
    /// connections' unfinished lines were let go, all of it given back by a trim). True when some was given back.
    @discardableResult
    public static func trim() -> Bool {
        depot_trim_free_memory() != 0
    }
}
