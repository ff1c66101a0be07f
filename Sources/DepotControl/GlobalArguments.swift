/// depotctl's global options may come before the subcommand, as docker's `-H`, systemctl's `--user` and
/// redis-cli's `-s` do: `depotctl --socket X --json state` is read as `depotctl state --socket X --json`.
/// Every subcommand that talks to depotd takes them (`ConnectionOptions`); ArgumentParser only reads a
/// subcommand's options after its name, so they are moved there before parsing.
enum GlobalArguments {
    /// The options that may come first, and whether each takes a value.
    static let options: [String: Bool] = ["--socket": true, "--json": false, "--instance": true, "-n": true, "--timeout": true]

    /// `arguments` (without the program's name) with the global options that come before the subcommand moved
    /// to the end of its arguments (before a `--`, after which everything is positional); anything else as is.
    static func hoisted(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
            guard let takesValue = options[name] else { break }
            if takesValue, name == argument {
                // `--socket PATH`: without its value it is left for the parser to report.
                guard index + 1 < arguments.endIndex else { break }
                leading += [argument, arguments[index + 1]]
                index += 2
            } else {
                leading.append(argument)
                index += 1
            }
        }
        guard !leading.isEmpty, index < arguments.endIndex else { return arguments }
        var rest = Array(arguments[index...])
        let end = rest.firstIndex(of: "--") ?? rest.endIndex
        rest.insert(contentsOf: leading, at: end)
        return rest
    }
}
