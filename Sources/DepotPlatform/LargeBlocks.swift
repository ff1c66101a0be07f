import CAllocator

/// How the C allocator treats large blocks. depotd's large blocks are encoded states and long lines, which come and
/// go; kept in the heap after they are freed they would hold the RSS at its peak, so a burst (one user's
/// connections cut off at their memory bound, say) would look like a leak and never come back.
public enum LargeBlocks {
    /// Blocks of at least this many bytes get a mapping of their own, given back when freed: 128 KiB, twice the
    /// largest buffer a socket read takes, so reads stay in the heap and states and long lines do not.
    public static let threshold = 128 << 10

    /// Returns blocks of `threshold` bytes or more to the system as soon as they are freed; false where the
    /// allocator has no such setting.
    @discardableResult
    public static func returnToSystemWhenFreed() -> Bool {
        depot_return_large_blocks(threshold) != 0
    }
}
