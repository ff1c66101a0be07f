import DepotJSON

#if canImport(Glibc)
import Glibc
#endif

/// Depot's patches, one case per line, for scripts/fuzz-patch to hold against the reference implementations: reads
/// `{"format": "merge" | "json-patch", "doc": …, "patch": …}` lines on standard input and writes, per line,
/// `{"result": …}` or `{"error": "…"}` (a JSON Patch that cannot be decoded or applied) on standard output.
@main
struct PatchOracle {
    static func main() {
        var output: [UInt8] = []
        output.reserveCapacity(1 << 20)
        func flush() {
            output.withUnsafeBytes { bytes in
                var written = 0
                while written < bytes.count {
                    let count = write(1, bytes.baseAddress! + written, bytes.count - written)
                    if count <= 0 { exit(1) }
                    written += count
                }
            }
            output.removeAll(keepingCapacity: true)
        }
        // Answers are written only at the end of a batch (its marker line): the driver writes a whole batch before it
        // reads, so answers written earlier could fill the pipe while it still writes, and both would wait.
        func answer(_ value: JSONValue) {
            output += value.jsonBytes
            output.append(10)
        }
        while let line = readLine(strippingNewline: true) {
            guard case .object(let fields)? = try? JSONParser.parse(line),
                case .string(let format)? = fields.member(named: "format"),
                let document = fields.member(named: "doc"), let patch = fields.member(named: "patch")
            else {
                answer(["error": "not a case"])
                continue
            }
            if format == "merge" {
                answer(["result": JSONMergePatch.apply(patch, to: document)])
                continue
            }
            do {
                answer(["result": try JSONPatch(decoding: patch).apply(to: document)])
            } catch {
                answer(["error": .string(error.description)])
            }
            // Each batch the driver sends ends with an empty-patch marker it waits for: answer it at once.
            if line.hasPrefix("{\"format\":\"json-patch\",\"doc\":\"end\"") { flush() }
        }
        flush()
    }
}
