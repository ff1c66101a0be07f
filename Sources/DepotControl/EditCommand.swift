import ArgumentParser
import DepotClient
import DepotJSON
import DepotPlatform
import DepotWire

#if canImport(Glibc)
import Glibc
#endif

struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Edit an item in $VISUAL or $EDITOR, and put it back through the source if it changed.",
        discussion: """
            As kubectl edit and systemctl edit do: the item is opened pretty-printed in your editor; saved unchanged, \
            nothing is sent. If the text is not a JSON object, or depotd refuses it (the item schema, an id that \
            changed), the editor opens again with why on top. The item is put with --if-match of the version opened: if \
            it changed meanwhile, nothing is written, your text is kept in a file depotctl names, and depotctl exits 1.
            """
    )

    @OptionGroup var options: ConnectionOptions

    @Argument(help: "The item's id.")
    var id: String

    @Flag(help: "Show the edited item to every subscriber at once, pending until the source has it.")
    var optimistic = false

    func run() async throws {
        let call = RemoteCall(options: options)
        let opened = try await call.run(GetRequest(id: id, meta: true)).result
        guard let item = opened["item"], case .string(let etag)? = opened["etag"] else {
            Output.error("depotd did not answer get with an item and its etag; is it older than depotctl (protocol 0.3.0)?")
            throw ExitCode(ExitStatus.unavailable)
        }
        let session = ItemEditSession(original: item)
        let file = try EditFile(id: id)
        let editor = EditorProgram(environment: ProcessEnvironment.variables)
        var body = item.prettyPrinted() + "\n"
        var problems: [String] = []
        while true {
            try file.write(ItemEditSession.text(body: body, problems: problems))
            guard let status = editor.edit(file.path) else {
                file.remove()
                Output.error("cannot start the editor (\(editor.command)); set VISUAL or EDITOR. Nothing was sent")
                throw ExitCode(ExitStatus.remoteError)
            }
            guard status == 0 else {
                file.remove()
                Output.error("the editor (\(editor.command)) exited with status \(status); nothing was sent")
                throw ExitCode(ExitStatus.remoteError)
            }
            let text = try file.read()
            body = ItemEditSession.body(of: text)
            switch session.judge(text) {
            case .unchanged:
                file.remove()
                Output.line("\(id) unchanged; nothing sent")
                return
            case .cancelled:
                file.remove()
                Output.line("edit of \(id) cancelled (the file was emptied); nothing sent")
                return
            case .invalid(let problem):
                problems = [problem]
                continue
            case .changed(let object):
                let request = PutRequest(id: .string(id), item: object, ifMatch: etag, optimistic: optimistic)
                switch try await call.attempt(request) {
                case .success(let (json, answer)):
                    file.remove()
                    Output.line(
                        options.json ? json.jsonText : "edited \(id) · etag \(answer.etag) · " + StateFormatter.statusLine(json["state"] ?? .null))
                    return
                case .failure(let error) where error.code == DepotErrorCode.conflict:
                    let now = error.data?["etag"]?.stringValue.map { "its etag is now \($0)" } ?? "it is gone"
                    Output.error(
                        "\(id) changed since it was opened (\(now)); nothing was written. Your edit is kept in \(file.path): compare it with depotctl get \(id), then edit again"
                    )
                    throw ExitCode(ExitStatus.remoteError)
                case .failure(let error) where error.code == DepotErrorCode.invalidItem || error.code == -32602:
                    let violations = (error.data?["violations"]?.arrayValue ?? []).compactMap { violation -> String? in
                        guard let message = violation["message"]?.stringValue else { return nil }
                        let pointer = violation["pointer"]?.stringValue ?? ""
                        return "\(pointer.isEmpty ? "the item" : pointer): \(message) (\(violation["keyword"]?.stringValue ?? ""))"
                    }
                    problems = violations.isEmpty ? [error.message] : violations
                    continue
                case .failure(let error):
                    file.remove()
                    Output.error(error)
                    throw ExitCode(ExitStatus.remoteError)
                }
            }
        }
    }
}

/// The file an edit is made in: private to the user (0600), in $TMPDIR, named after the item.
struct EditFile {
    let path: String

    init(id: String) throws {
        let directory = ProcessEnvironment.variables["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let safe = String(id.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }.prefix(40))
        var template = Array("\(directory)/depotctl-edit-\(safe)-XXXXXX.json".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemps($0, 5) } ?? -1 }
        guard fd >= 0 else { throw ValidationError("cannot create a file to edit in \(directory): \(String(cString: strerror(errno)))") }
        close(fd)
        path = template.withUnsafeBufferPointer { buffer in buffer.baseAddress.map { String(cString: $0) } ?? "" }
    }

    func write(_ text: String) throws {
        guard let handle = fopen(path, "w") else { throw ValidationError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { fclose(handle) }
        _ = Array(text.utf8).withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, handle) }
    }

    func read() throws -> String {
        guard let handle = fopen(path, "r") else { throw ValidationError("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { fclose(handle) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, handle) }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func remove() {
        unlink(path)
    }
}
