import DepotTestSupport
import Foundation
import Testing

/// README.md as the tests that hold it to the program read it: a section, and its fenced code blocks.
enum ReadmeText {
    /// The text under the `## ` heading `heading` (given with its newline), up to the next `## ` heading.
    static func section(_ heading: String) throws -> Substring {
        let readme = try RepositoryFiles.text("README.md")
        let start = try #require(readme.range(of: heading), "README.md has a section \(heading)")
        let end = readme.range(of: "\n## ", range: start.upperBound..<readme.endIndex)?.lowerBound ?? readme.endIndex
        return readme[start.upperBound..<end]
    }

    /// The lines of each block of `text` fenced as ```` ```language ````, without the fences.
    static func codeBlocks(_ language: String, in text: Substring) -> [[String]] {
        text.components(separatedBy: "```").enumerated().compactMap { fenced in
            guard fenced.offset % 2 == 1, fenced.element.hasPrefix(language + "\n") else { return nil }
            return fenced.element.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().dropLast().map(String.init)
        }
    }
}
