/// RESP framing, as much of it as Redis answers GET, SET, PUBLISH and SUBSCRIBE with: arrays, bulk strings,
/// integers, simple strings and errors. A bulk string's body is skipped by count, never scanned; the head
/// kept is the first bytes of the message's last bulk string (a push's payload, a GET's value).
public final class RESPFramer: MessageFramer {
    private enum Position {
        /// Reading a type line such as `*3`, `$1048576`, `:1`, `+OK`.
        case typeLine
        /// Inside a bulk string's body, with this many bytes left.
        case bulk(remaining: Int)
        /// After a bulk string's body, with this many bytes of its CRLF left.
        case bulkEnd(remaining: Int)
    }

    private var position = Position.typeLine
    private var line: [UInt8] = []
    /// Elements still expected by each array being read, innermost last.
    private var openArrays: [Int] = []
    private var head = MessageHead()
    private var messageBytes = 0
    private var isError = false
    public private(set) var lastHead: [UInt8] = []

    public init() {}

    public func feed(_ bytes: UnsafeRawBufferPointer, _ deliver: (FramedMessage) -> Void) {
        var index = 0
        while index < bytes.count {
            switch position {
            case .typeLine:
                let byte = bytes[index]
                index += 1
                messageBytes += 1
                guard byte == 0x0A else {
                    if byte != 0x0D { line.append(byte) }
                    continue
                }
                typeLineEnded(deliver)
            case .bulk(let remaining):
                let count = min(remaining, bytes.count - index)
                if !head.isFull { head.append(UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)])) }
                index += count
                messageBytes += count
                position = remaining == count ? .bulkEnd(remaining: 2) : .bulk(remaining: remaining - count)
            case .bulkEnd(let remaining):
                index += 1
                messageBytes += 1
                if remaining == 1 {
                    position = .typeLine
                    elementEnded(deliver)
                } else {
                    position = .bulkEnd(remaining: remaining - 1)
                }
            }
        }
    }

    private func typeLineEnded(_ deliver: (FramedMessage) -> Void) {
        guard let type = line.first else { return }
        let value = Self.integer(line.dropFirst())
        line.removeAll(keepingCapacity: true)
        switch type {
        case UInt8(ascii: "*"):
            if value > 0 {
                openArrays.append(value)
            } else {
                elementEnded(deliver)
            }
        case UInt8(ascii: "$"):
            if value >= 0 {
                head.reset()
                position = value == 0 ? .bulkEnd(remaining: 2) : .bulk(remaining: value)
            } else {
                elementEnded(deliver)
            }
        case UInt8(ascii: "-"):
            isError = true
            elementEnded(deliver)
        default:
            elementEnded(deliver)
        }
    }

    private func elementEnded(_ deliver: (FramedMessage) -> Void) {
        while let last = openArrays.last {
            if last > 1 {
                openArrays[openArrays.count - 1] = last - 1
                return
            }
            openArrays.removeLast()
        }
        let message = FramedMessage(seq: head.seq, bytes: messageBytes, isError: isError)
        lastHead = head.bytes
        head.reset()
        messageBytes = 0
        isError = false
        deliver(message)
    }

    private static func integer(_ digits: ArraySlice<UInt8>) -> Int {
        var value = 0
        var sign = 1
        for byte in digits {
            if byte == UInt8(ascii: "-") {
                sign = -1
            } else if byte >= 48, byte <= 57 {
                value = value * 10 + Int(byte - 48)
            }
        }
        return sign * value
    }

    /// A command as RESP: an array of bulk strings.
    public static func command(_ arguments: [[UInt8]]) -> [UInt8] {
        var bytes = Array("*\(arguments.count)\r\n".utf8)
        for argument in arguments {
            bytes += Array("$\(argument.count)\r\n".utf8)
            bytes += argument
            bytes += [0x0D, 0x0A]
        }
        return bytes
    }

    public static func command(_ arguments: String...) -> [UInt8] {
        command(arguments.map { Array($0.utf8) })
    }
}
