import Foundation

/// One change to a directory's files, as the write recorder (Sources/DepotWriteRecorder, loaded into depotd with
/// LD_PRELOAD) logged it, or a mark the test put between them.
enum RecordedCall: Equatable, CustomStringConvertible {
    case open(fd: Int32, flags: Int32, path: String)
    case write(fd: Int32, offset: Int, bytes: [UInt8])
    case fsync(fd: Int32)
    case truncate(fd: Int32, length: Int)
    case rename(from: String, to: String)
    case unlink(path: String)
    case close(fd: Int32)
    /// A call the model does not know (writev, …): the check fails on it rather than guess.
    case unsupported(String)
    /// The test's mark: it asked for write `number` (`ask`), or was answered it (`answer`).
    case mark(String, number: Int)

    var description: String {
        switch self {
        case .open(let fd, let flags, let path): "open(\(path), \(String(flags, radix: 8))) = \(fd)"
        case .write(let fd, let offset, let bytes): "write(\(fd), at \(offset), \(bytes.count) bytes)"
        case .fsync(let fd): "fsync(\(fd))"
        case .truncate(let fd, let length): "ftruncate(\(fd), \(length))"
        case .rename(let from, let to): "rename(\(from), \(to))"
        case .unlink(let path): "unlink(\(path))"
        case .close(let fd): "close(\(fd))"
        case .unsupported(let name): "unsupported \(name)"
        case .mark(let kind, let number): "\(kind) \(number)"
        }
    }

    /// The records of a log, in order.
    static func parse(_ log: [UInt8]) throws -> [RecordedCall] {
        var calls: [RecordedCall] = []
        var position = 0
        func line() throws -> String {
            guard let end = log[position...].firstIndex(of: UInt8(ascii: "\n")) else {
                throw RecordError("a record is cut short at byte \(position)")
            }
            defer { position = end + 1 }
            return String(decoding: log[position..<end], as: UTF8.self)
        }
        while position < log.count {
            let head = try line()
            let fields = head.split(separator: " ", maxSplits: 3).map(String.init)
            func number(_ index: Int) throws -> Int {
                guard fields.count > index, let value = Int(fields[index]) else { throw RecordError("a bad record: \(head)") }
                return value
            }
            switch fields.first {
            case "open":
                guard fields.count == 4 else { throw RecordError("a bad record: \(head)") }
                calls.append(.open(fd: Int32(try number(1)), flags: Int32(try number(2)), path: fields[3]))
            case "write":
                let count = try number(3)
                guard position + count <= log.count else { throw RecordError("a write's bytes are cut short") }
                calls.append(.write(fd: Int32(try number(1)), offset: try number(2), bytes: Array(log[position..<position + count])))
                position += count
            case "fsync": calls.append(.fsync(fd: Int32(try number(1))))
            case "truncate": calls.append(.truncate(fd: Int32(try number(1)), length: try number(2)))
            case "rename":
                let from = String(head.dropFirst("rename ".count))
                calls.append(.rename(from: from, to: try line()))
            case "unlink": calls.append(.unlink(path: String(head.dropFirst("unlink ".count))))
            case "close": calls.append(.close(fd: Int32(try number(1))))
            case "ask", "answer": calls.append(.mark(fields[0], number: try number(1)))
            default: calls.append(.unsupported(head))
            }
        }
        return calls
    }
}

struct RecordError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A directory's files as a power loss leaves them at any point of a recorded sequence: only what was synced
/// survives — a file's bytes as they were at its last fsync (none, if never), a name as it was when its directory was
/// last fsynced — as LazyFS's "clear the cache" does, and as a disk without a battery may.
struct PowerLossModel {
    struct File {
        var written: [UInt8]
        var synced: [UInt8] = []
    }

    let directory: String
    private(set) var files: [File] = []
    /// Names to files as the directory is now, and as it was when last synced.
    private(set) var names: [String: Int] = [:]
    private(set) var syncedNames: [String: Int] = [:]
    private var descriptors: [Int32: Int?] = [:]
    /// Every content a name was given whole by a rename onto it: the versions a reader may find there.
    private(set) var versions: [String: Set<[UInt8]>] = [:]

    /// The directory with `existing` files, all synced.
    init(directory: String, existing: [String: [UInt8]]) {
        self.directory = directory
        for (name, bytes) in existing {
            files.append(File(written: bytes, synced: bytes))
            names[name] = files.count - 1
            versions[name] = [bytes]
        }
        syncedNames = names
    }

    private func name(of path: String) throws -> String {
        guard path.hasPrefix(directory + "/") else { throw RecordError("\(path) is not in \(directory)") }
        return String(path.dropFirst(directory.count + 1))
    }

    /// Applies one recorded call (a mark changes nothing).
    mutating func apply(_ call: RecordedCall) throws {
        switch call {
        case .open(let fd, let flags, let path):
            if path == directory {
                descriptors[fd] = .some(nil)
                return
            }
            let name = try name(of: path)
            if let file = names[name] {
                if flags & O_TRUNC != 0 { files[file].written = [] }
                descriptors[fd] = file
            } else {
                guard flags & O_CREAT != 0 else { throw RecordError("\(path) opened for writing, but it is not there") }
                files.append(File(written: []))
                names[name] = files.count - 1
                descriptors[fd] = files.count - 1
            }
        case .write(let fd, let offset, let bytes):
            guard case .some(.some(let file)) = descriptors[fd] else { throw RecordError("a write to \(fd), which is not an open file") }
            var written = files[file].written
            if written.count < offset { written += [UInt8](repeating: 0, count: offset - written.count) }
            let end = offset + bytes.count
            if written.count < end { written += [UInt8](repeating: 0, count: end - written.count) }
            written.replaceSubrange(offset..<end, with: bytes)
            files[file].written = written
        case .fsync(let fd):
            switch descriptors[fd] {
            case .some(.some(let file)): files[file].synced = files[file].written
            case .some(.none): syncedNames = names
            case .none: throw RecordError("fsync of \(fd), which is not open")
            }
        case .truncate(let fd, let length):
            guard case .some(.some(let file)) = descriptors[fd] else { throw RecordError("ftruncate of \(fd), which is not an open file") }
            let written = files[file].written
            files[file].written =
                written.count >= length ? Array(written.prefix(length)) : written + [UInt8](repeating: 0, count: length - written.count)
        case .rename(let from, let to):
            let (source, target) = (try name(of: from), try name(of: to))
            guard let file = names.removeValue(forKey: source) else { throw RecordError("rename of \(from), which is not there") }
            names[target] = file
            versions[target, default: []].insert(files[file].written)
        case .unlink(let path):
            names[try name(of: path)] = nil
        case .close(let fd):
            descriptors[fd] = nil
        case .unsupported(let what):
            throw RecordError("a call the model does not know: \(what)")
        case .mark:
            break
        }
    }

    /// What a reader finds at `name` now, without a power loss.
    func current(_ name: String) -> [UInt8]? {
        names[name].map { files[$0].written }
    }

    /// What a reader finds at `name` after a power loss now: nil when the name is gone.
    func afterPowerLoss(_ name: String) -> [UInt8]? {
        syncedNames[name].map { files[$0].synced }
    }
}
