import DepotPlatform
import Testing

@Suite("FreedMemory: the C allocator gives freed memory back")
struct FreedMemoryTests {
    #if canImport(Glibc)
    @Test("under glibc, mallopt takes both settings (the shim sees glibc)")
    func glibc() {
        #expect(FreedMemory.returnLargeBlocks())
    }
    #endif
}
