import NIOCore

/// What the connections of each user hold in depotd's memory: lines unfinished or waiting to be dispatched,
/// answers and notifications the socket has not taken yet, notifications queued for their subscriptions.
///
/// One state sent to many of a user's subscribers is one buffer: a buffer counts once per user however many of
/// its connections hold it, so the figure is what the user keeps alive, not what it would cost to copy. Small
/// buffers (a notification's prefix, a short answer) are counted per holder instead, to keep the books cheap.
/// Connections gather their changes (`Change`) and apply them under one lock; each checks its user's total
/// against `--max-memory-per-user`. Unfinished lines are also counted across all users, against
/// `--max-unfinished-line-bytes`.
final class ClientMemory: Sendable {
    /// Buffers at least this large are counted once per user, by identity; smaller ones by their size per holder.
    static let sharedThreshold = 1024

    /// A change to one user's holdings: buffers it took and let go, and bytes of its own (input) it took (> 0) or
    /// let go (< 0).
    struct Change {
        var exclusiveBytes = 0
        var held: [ByteBuffer] = []
        var released: [ByteBuffer] = []

        var isEmpty: Bool { exclusiveBytes == 0 && held.isEmpty && released.isEmpty }
        /// Whether the change takes anything (which is when a bound can be passed).
        var takes: Bool { exclusiveBytes > 0 || !held.isEmpty }

        mutating func hold(_ buffer: ByteBuffer) {
            if buffer.readableBytes >= ClientMemory.sharedThreshold {
                held.append(buffer)
            } else {
                exclusiveBytes += buffer.readableBytes
            }
        }

        mutating func hold(_ buffers: [ByteBuffer]) {
            for buffer in buffers { hold(buffer) }
        }

        mutating func release(_ buffer: ByteBuffer) {
            if buffer.readableBytes >= ClientMemory.sharedThreshold {
                released.append(buffer)
            } else {
                exclusiveBytes -= buffer.readableBytes
            }
        }

        mutating func release(_ buffers: [ByteBuffer]) {
            for buffer in buffers { release(buffer) }
        }

        mutating func merge(_ other: Change) {
            exclusiveBytes += other.exclusiveBytes
            held += other.held
            released += other.released
        }
    }

    /// A buffer's identity while it is held: where its bytes are, and how many (the account keeps the buffer, so
    /// its storage cannot be freed and reused while counted).
    struct BufferKey: Hashable {
        let address: UInt
        let length: Int

        init(_ buffer: ByteBuffer) {
            address = buffer.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
            length = buffer.readableBytes
        }
    }

    struct Account {
        var exclusive = 0
        var shared: [BufferKey: (buffer: ByteBuffer, holders: Int)] = [:]
        var sharedBytes = 0

        var total: Int { exclusive + sharedBytes }
        var isEmpty: Bool { exclusive == 0 && shared.isEmpty }
    }

    /// Each user's account, and the bytes the accounts gave back since `takeReleased` was last called (when many,
    /// the allocator is asked to give free memory back to the system), both changed in `apply`; the bytes of
    /// unfinished lines, all users.
    struct Books {
        var accounts: [UInt32?: Account] = [:]
        var released = 0
        var unfinishedBytes = 0
    }

    private let serverBooks: ServerBooks

    /// Accounts kept in `books`.
    init(books: ServerBooks = ServerBooks()) {
        self.serverBooks = books
    }

    private func withBooks<Result>(_ body: (inout Books) -> Result) -> Result {
        serverBooks.withValue { body(&$0.memory) }
    }

    /// Applies `change` to `user`'s account (nil: a connection without credentials) and returns its total after.
    @discardableResult
    func apply(_ change: Change, user: UInt32?) -> Int {
        withBooks { books in
            var account = books.accounts.removeValue(forKey: user) ?? Account()
            let before = account.total
            account.exclusive += change.exclusiveBytes
            // Taken before let go: a buffer queued and dropped again within one change nets to nothing.
            for buffer in change.held {
                let key = BufferKey(buffer)
                if let entry = account.shared[key] {
                    account.shared[key] = (entry.buffer, entry.holders + 1)
                } else {
                    account.shared[key] = (buffer, 1)
                    account.sharedBytes += key.length
                }
            }
            for buffer in change.released {
                let key = BufferKey(buffer)
                guard let entry = account.shared[key] else {
                    assertionFailure("ClientMemory: a buffer released that was not held")
                    continue
                }
                if entry.holders > 1 {
                    account.shared[key] = (entry.buffer, entry.holders - 1)
                } else {
                    account.shared[key] = nil
                    account.sharedBytes -= key.length
                }
            }
            assert(account.exclusive >= 0, "ClientMemory: more bytes released than held")
            let total = account.total
            if !account.isEmpty {
                books.accounts[user] = account
            }
            if total < before {
                books.released += before - total
            }
            return total
        }
    }

    /// Adds `delta` bytes to the unfinished lines of all users; returns the total after.
    @discardableResult
    func addUnfinished(_ delta: Int) -> Int {
        withBooks { books in
            books.unfinishedBytes += delta
            return books.unfinishedBytes
        }
    }

    /// Bytes the accounts gave back since the last call.
    func takeReleased() -> Int {
        withBooks { books in
            defer { books.released = 0 }
            return books.released
        }
    }

    /// Bytes held by each user's connections now.
    var byUser: [UInt32?: Int] {
        withBooks { $0.accounts.mapValues(\.total) }
    }

    /// Bytes of unfinished lines, from all users.
    var unfinished: Int {
        withBooks { $0.unfinishedBytes }
    }
}
