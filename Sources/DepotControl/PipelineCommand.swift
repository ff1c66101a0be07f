import ArgumentParser
import DepotJSON
import DepotOperators
import DepotPlatform
import DepotWire

#if canImport(Glibc)
import Glibc
#endif

/// `depotctl pipeline`: the named pipelines the daemon keeps.
struct PipelineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "Keep named pipelines in depotd: put, get, list, delete, export, import.",
        discussion: """
            A named pipeline is operators the daemon keeps under a name, for any subscriber to follow: \
            `depotctl watch --pipeline NAME`. Changing it reaches its subscribers at once. export writes it as a \
            JSON file ({"name", "description", "pipeline"}), which import reads on another machine.
            """,
        subcommands: [Put.self, Get.self, List.self, Delete.self, Export.self, Import.self]
    )

    struct Put: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store a named pipeline, or replace the stored one of that name.",
            discussion: """
                The operators come as JSON (--pipeline '[…]') or from the short options: \
                `depotctl pipeline put fire --where '/types contains "fire"' --select /name`.
                """)

        @OptionGroup var options: ConnectionOptions

        @Argument(help: "The pipeline's name: letters, digits, '.', '_' or '-'.")
        var name: String

        @Option(help: "What the pipeline is for.")
        var description: String?

        @OptionGroup(title: "Pipeline") var pipelineOptions: PipelineOptions

        func run() async throws {
            guard case .operators(let pipeline)? = try pipelineOptions.reference() else {
                throw ValidationError("give the operators: --pipeline '[…]' (JSON), or short options such as --where and --select")
            }
            let named = try PipelineCommand.named(name, description, pipeline)
            if pipelineOptions.printPipeline {
                Output.line(named.json.prettyPrinted())
                return
            }
            let (json, created) = try await RemoteCall(options: options).run(PipelinesPutRequest(named))
            Output.line(options.json ? json.jsonText : "\(created ? "created" : "replaced") pipeline \(name)")
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a named pipeline.")

        @OptionGroup var options: ConnectionOptions

        @Argument(help: "The pipeline's name.")
        var name: String

        func run() async throws {
            let (json, _) = try await RemoteCall(options: options).run(PipelinesGetRequest(name: name))
            Output.line(options.json ? json.jsonText : json.prettyPrinted())
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the named pipelines: name, operators, description.")

        @OptionGroup var options: ConnectionOptions

        func run() async throws {
            let (json, stored) = try await RemoteCall(options: options).run(PipelinesListRequest())
            if options.json {
                Output.line(json.jsonText)
                return
            }
            guard !stored.isEmpty else {
                Output.line("no named pipelines; store one with depotctl pipeline put")
                return
            }
            let width = stored.map(\.named.name.count).max() ?? 0
            for entry in stored {
                let operators = entry.named.pipeline.operators.map(\.name).joined(separator: " → ")
                let padded = entry.named.name + String(repeating: " ", count: width - entry.named.name.count)
                let note = [entry.readOnly ? "read-only" : nil, entry.named.description].compactMap { $0 }.joined(separator: ", ")
                Output.line("\(padded)  \(operators.isEmpty ? "(no operators)" : operators)\(note.isEmpty ? "" : "  — \(note)")")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a named pipeline; its subscriptions end.")

        @OptionGroup var options: ConnectionOptions

        @Argument(help: "The pipeline's name.")
        var name: String

        func run() async throws {
            _ = try await RemoteCall(options: options).run(PipelinesDeleteRequest(name: name))
            if !options.json { Output.line("deleted pipeline \(name)") } else { Output.line("true") }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a named pipeline as a JSON file, for import elsewhere.")

        @OptionGroup var options: ConnectionOptions

        @Argument(help: "The pipeline's name.")
        var name: String

        @Option(name: .shortAndLong, help: "The file to write; standard output when absent.")
        var output: String?

        func run() async throws {
            let (_, stored) = try await RemoteCall(options: options).run(PipelinesGetRequest(name: name))
            let text = stored.named.json.prettyPrinted() + "\n"
            guard let output else {
                Output.line(String(text.dropLast()))
                return
            }
            do {
                try Files.replaceAtomically(output, with: Array(text.utf8))
            } catch {
                Output.error("\(error)")
                throw ExitCode(ExitStatus.remoteError)
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store a pipeline from a JSON file that export wrote ({\"name\", \"description\", \"pipeline\"}).")

        @OptionGroup var options: ConnectionOptions

        @Argument(help: "The file; - for standard input.")
        var file: String

        @Option(help: "Store it under this name instead of the file's.")
        var name: String?

        func run() async throws {
            let bytes: [UInt8]
            do {
                bytes = file == "-" ? try Files.readToEnd(descriptor: STDIN_FILENO, named: "standard input") : try Files.readAll(file)
            } catch {
                throw ValidationError("\(error)")
            }
            let named: NamedPipeline
            do {
                named = try NamedPipeline(decoding: try JSONParser.parse(bytes))
            } catch {
                throw ValidationError("\(file) is not a pipeline as export writes it: \(error)")
            }
            let stored = try PipelineCommand.named(name ?? named.name, named.description, named.pipeline)
            let (json, created) = try await RemoteCall(options: options).run(PipelinesPutRequest(stored))
            Output.line(options.json ? json.jsonText : "\(created ? "created" : "replaced") pipeline \(stored.name)")
        }
    }

    /// A named pipeline, its name checked first (a usage error).
    static func named(_ name: String, _ description: String?, _ pipeline: Pipeline) throws -> NamedPipeline {
        if let problem = NamedPipeline.problem(withName: name) {
            throw ValidationError("\"\(name)\": \(problem)")
        }
        return NamedPipeline(name: name, description: description, pipeline: pipeline)
    }
}
