import DepotClient
import DepotJSON
import DepotPlatform
import DepotSchema
import DepotWire

/// A tap on one connection that checks each message depotd sends against the protocol's document: an answer
/// against the method its id was sent with (a result, or an error the method lists), a notification against its
/// params. Reports to its `ProtocolLedger`.
///
/// It reads the requests going out to learn which method each id calls; bytes that are not a request (garbage,
/// fragments, notifications) teach it nothing, and an answer to an id it never saw must be one of JSON-RPC's own
/// errors (which is what depotd answers to requests it cannot read).
package final class ProtocolChecker: ConnectionTap {
    private struct Requests {
        /// The bytes sent since the last newline.
        var partialLine: [UInt8] = []
        /// For each id (its JSON text, as the server echoes it), the methods called with it and not yet answered.
        var methodsByID: [String: [String]] = [:]
    }

    private let ledger: ProtocolLedger
    private let requests = Locked(Requests())

    init(ledger: ProtocolLedger) {
        self.ledger = ledger
    }

    package func sent(_ bytes: [UInt8]) {
        requests.withLock { requests in
            requests.partialLine += bytes
            while let newline = requests.partialLine.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(requests.partialLine[..<newline])
                requests.partialLine.removeSubrange(...newline)
                Self.learn(from: line, into: &requests.methodsByID)
            }
        }
    }

    package func finishedSending() {
        requests.withLock { requests in
            Self.learn(from: requests.partialLine, into: &requests.methodsByID)
            requests.partialLine = []
        }
    }

    package func received(_ line: [UInt8]) {
        let message: JSONValue
        do {
            message = try JSONParser.parse(line)
        } catch {
            ledger.noteChecked([report("is not JSON (\(error))", line: line)])
            return
        }
        var problems: [String] = []
        if case .array(let answers) = message {
            if answers.isEmpty { problems.append(report("is an empty batch of answers; JSON-RPC never sends one", line: line)) }
            for answer in answers {
                problems += check(answer, line: line)
            }
        } else {
            problems += check(message, line: line)
        }
        ledger.noteChecked(problems)
    }

    private func check(_ message: JSONValue, line: [UInt8]) -> [String] {
        let document = ProtocolLedger.document
        if message["method"] != nil {
            let violations = document.validateNotification(message)
            guard violations.isEmpty else { return [report(violations, line: line, as: "a notification")] }
            return notificationDecodingProblems(message, line: line)
        }
        let candidates = message["id"].map { id in requests.withLock { $0.methodsByID[id.jsonText] ?? [] } } ?? []
        // Ids may repeat (a batch with duplicate ids): the answer must fit one of the methods sent with its id.
        var firstViolations: [SchemaViolation]?
        for method in candidates {
            let violations = document.validateResponse(message, toMethod: method)
            if violations.isEmpty {
                forget(method, id: message["id"])
                return decodingProblems(ofAnswer: message, to: method, line: line)
            }
            firstViolations = firstViolations ?? violations
        }
        if let firstViolations {
            return [report(firstViolations, line: line, as: "the answer to \(candidates[0])")]
        }
        let violations = document.validateResponse(message, toMethod: "")
        return violations.isEmpty ? [] : [report(violations, line: line, as: "an answer to no request it was sent")]
    }

    /// DepotWire's decoders must read what depotd sends, as the document does: a result through its request
    /// type, and a State carried as an error's data.
    private func decodingProblems(ofAnswer message: JSONValue, to method: String, line: [UInt8]) -> [String] {
        if let result = message["result"], let request = DepotRequests.all.first(where: { $0.method == method }) {
            do {
                _ = try request.decodeResult(result)
            } catch {
                return [report("cannot be decoded as the answer to \(method): \(error)", line: line)]
            }
        }
        if let data = message["error"]?["data"], data[StateMember.status] != nil {
            return decodingProblems(data, as: "an error's State", line: line)
        }
        return []
    }

    /// DepotWire's decoders must read every notification: a heartbeat's params, a stateChanged's State and delta.
    private func notificationDecodingProblems(_ message: JSONValue, line: [UInt8]) -> [String] {
        let params = message["params"]
        do {
            if message["method"] == .string(Heartbeat.method) {
                _ = try Heartbeat(decoding: params ?? .null)
                return []
            }
            if let delta = params?[StateNotification.Param.delta] {
                _ = try WireDelta(decoding: delta)
            }
        } catch {
            return [report("has params DepotWire cannot decode: \(error)", line: line)]
        }
        return decodingProblems(params?[StateNotification.Param.state], as: "a notification's State", line: line)
    }

    private func decodingProblems(_ state: JSONValue?, as what: String, line: [UInt8]) -> [String] {
        guard let state else { return [] }
        do {
            _ = try WireState(decoding: state)
            return []
        } catch {
            return [report("has \(what) that WireState cannot decode: \(error)", line: line)]
        }
    }

    private func forget(_ method: String, id: JSONValue?) {
        guard let key = id?.jsonText else { return }
        requests.withLock { requests in
            guard var methods = requests.methodsByID[key], let index = methods.firstIndex(of: method) else { return }
            methods.remove(at: index)
            requests.methodsByID[key] = methods.isEmpty ? nil : methods
        }
    }

    /// Notes the id and method of each request in `line` (a request or a batch); anything else is skipped.
    private static func learn(from line: [UInt8], into methodsByID: inout [String: [String]]) {
        var bytes = line[...]
        if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let message = try? JSONParser.parse(Array(bytes)) else { return }
        let requests = message.arrayValue ?? [message]
        for request in requests {
            guard let id = request["id"], let method = request["method"]?.stringValue else { continue }
            methodsByID[id.jsonText, default: []].append(method)
        }
    }

    private func report(_ violations: [SchemaViolation], line: [UInt8], as what: String) -> String {
        report("breaks rpc-schema/openrpc.json as \(what):\n" + violations.map { "  - \($0)" }.joined(separator: "\n"), line: line)
    }

    private func report(_ problem: String, line: [UInt8]) -> String {
        let text = String(decoding: line.prefix(600), as: UTF8.self) + (line.count > 600 ? "… (\(line.count) bytes)" : "")
        return "depotd sent a message that \(problem)\n  message: \(text)"
    }
}
