import NIOCore
import Testing

@testable import DepotServer

@Suite("OutputBooks: what a connection's output holds, and when answers pile up")
struct OutputBooksTests {
    static func buffer(_ bytes: Int) -> ByteBuffer {
        ByteBuffer(repeating: UInt8(ascii: "x"), count: bytes)
    }

    @Test("a write is held in the memory change, unless a subscription's queue held it already")
    func writesAreHeld() {
        var books = OutputBooks()
        books.wrote(Self.buffer(10))
        books.wrote(Self.buffer(20), alreadyHeld: true)
        #expect(books.unflushed.map(\.readableBytes) == [10, 20])
        let change = books.takeMemoryChange()
        #expect(change.exclusiveBytes == 10, "a small buffer counts by its size (one of 1 KiB or more, by identity)")
        #expect(books.memoryChange.isEmpty, "taking the change starts a new one")
    }

    @Test("one answer always goes however large; a second past the bound is a pile-up")
    func unreadAnswersBound() {
        var books = OutputBooks()
        books.wrote(Self.buffer(100))
        let first = books.answered(bytes: 100, limit: 50)
        #expect(!first, "the first answer goes, though over the bound")
        books.wrote(Self.buffer(10))
        let pastTheBound = books.answered(bytes: 10, limit: 50)
        #expect(pastTheBound, "two unread, 110 bytes, past 50")
        #expect(books.unreadAnswers == (count: 2, bytes: 110) ? true : false)
    }

    @Test("a flush lets go what was written since the last; once the socket takes it, it leaves the books")
    func flushAndTake() throws {
        var books = OutputBooks()
        let nothing = books.flushing()
        #expect(nothing == nil, "nothing written, nothing to flush")
        books.wrote(Self.buffer(3000))
        _ = books.answered(bytes: 3000, limit: 1 << 20)
        books.wrote(Self.buffer(5))
        let flushing = books.flushing()
        let flushed = try #require(flushing)
        #expect(flushed.written.map(\.readableBytes) == [3000, 5])
        #expect(flushed.answers == (count: 1, bytes: 3000) ? true : false)
        let again = books.flushing()
        #expect(books.unflushed.isEmpty && again == nil)
        _ = books.takeMemoryChange()
        books.taken(flushed)
        #expect(books.unreadAnswers == (count: 0, bytes: 0) ? true : false)
        let change = books.takeMemoryChange()
        #expect(change.released.map(\.readableBytes) == [3000] && change.exclusiveBytes == -5, "released: the shared one by identity")
    }
}
