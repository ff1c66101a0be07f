import NIOCore
import Testing

@testable import DepotServer

@Suite("OutputBooks: what a connection's output has written, and when answers pile up")
struct OutputBooksTests {
    static func buffer(_ bytes: Int) -> ByteBuffer {
        ByteBuffer(repeating: UInt8(ascii: "x"), count: bytes)
    }

    @Test("writes are kept, in order, until a flush")
    func writesAreKept() {
        var books = OutputBooks()
        books.wrote(Self.buffer(10))
        books.wrote(Self.buffer(20))
        #expect(books.unflushed.map(\.readableBytes) == [10, 20])
        #expect(books.hasUnflushedOutput)
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
        books.taken(flushed)
        #expect(books.unreadAnswers == (count: 0, bytes: 0) ? true : false)
    }
}
