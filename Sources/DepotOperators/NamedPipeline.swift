public import DepotJSON

/// A pipeline the daemon keeps by name: `{"name", "description"?, "pipeline": [operator…]}` — the params of
/// `pipelines.put`, the file the daemon stores it in, and what `depotctl pipeline export` writes, alike.
public struct NamedPipeline: Sendable, Equatable {
    public let name: String
    public let description: String?
    public let pipeline: Pipeline

    /// The longest name: names are file names too.
    public static let maxNameLength = 64

    public init(name: String, description: String? = nil, pipeline: Pipeline) {
        self.name = name
        self.description = description
        self.pipeline = pipeline
    }

    /// Why `name` cannot name a pipeline; nil when it can: 1 to 64 of letters, digits, `.`, `_` and `-`, starting
    /// with a letter or digit (so it is a safe file name and never `.` or `..`).
    public static func problem(withName name: String) -> String? {
        let bytes = Array(name.utf8)
        func isAlphanumeric(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard let first = bytes.first, bytes.count <= maxNameLength, isAlphanumeric(first),
            bytes.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
        else {
            return "a pipeline's name is 1 to \(maxNameLength) letters, digits, '.', '_' or '-', starting with a letter or digit"
        }
        return nil
    }

    /// Decodes `{"name", "description"?, "pipeline"}`; an error says which member is wrong (a pipeline's errors
    /// name the operator, under `/pipeline`).
    public init(decoding value: JSONValue) throws(PipelineError) {
        guard case .object(let object) = value else {
            throw PipelineError(index: nil, pointer: .root, reason: "a named pipeline is an object {\"name\", \"description\", \"pipeline\"}")
        }
        for member in object.effectiveMembers where !["name", "description", "pipeline"].contains(member.key) {
            throw PipelineError(
                index: nil, pointer: JSONPointer(tokens: [member.key]),
                reason: "unknown member \"\(member.key)\"; a named pipeline has name, description and pipeline")
        }
        guard case .string(let name)? = object.member(named: "name") else {
            throw PipelineError(index: nil, pointer: JSONPointer(tokens: ["name"]), reason: "\"name\" is required, a string")
        }
        if let problem = Self.problem(withName: name) {
            throw PipelineError(index: nil, pointer: JSONPointer(tokens: ["name"]), reason: "\(problem), not \(JSONValue.string(name).jsonText)")
        }
        var description: String?
        switch object.member(named: "description") {
        case nil, .null?: break
        case .string(let text)?: description = text
        case let other?:
            throw PipelineError(
                index: nil, pointer: JSONPointer(tokens: ["description"]), reason: "\"description\" is a string, not \(other.typeNameWithArticle)")
        }
        guard let operators = object.member(named: "pipeline") else {
            throw PipelineError(index: nil, pointer: JSONPointer(tokens: ["pipeline"]), reason: "\"pipeline\" is required, an array of operators")
        }
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(decoding: operators)
        } catch {
            throw PipelineError(index: error.index, pointer: JSONPointer(tokens: ["pipeline"] + error.pointer.tokens), reason: error.reason)
        }
        self.init(name: name, description: description, pipeline: pipeline)
    }

    /// `{"name", "description"?, "pipeline"}` in that order.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = [("name", .string(name))]
        if let description { members.append(("description", .string(description))) }
        members.append(("pipeline", pipeline.json))
        return .object(JSONObject(members))
    }
}
