import DepotPlatform
import Testing

@Suite("Locked: a value reached only under a lock")
struct LockedTests {
    @Test("concurrent changes are each applied once")
    func concurrentChanges() async {
        let counter = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
                }
            }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    struct Refused: Error, Equatable {}

    @Test("what the body returns or throws comes back, and a throw keeps what the body changed before it")
    func returnsAndThrows() {
        let value = Locked([1, 2])
        #expect(value.withLock { $0.count } == 2)
        #expect(throws: Refused()) {
            try value.withLock { (items: inout [Int]) throws(Refused) -> Void in
                items.append(3)
                throw Refused()
            }
        }
        #expect(value.withLock { $0 } == [1, 2, 3])
    }
}
