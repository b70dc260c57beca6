import Foundation
import Testing
import TestSupport

/// Source comments give the reason, not the lab figure (issue 26): a comment says why the code
/// is shaped this way ("a generic path here was several times slower; see docs/performance.md")
/// and the measurement itself goes to docs/performance.md, "Why the code is shaped this way". A
/// figure of a format or a limit ("a 16-byte integer", "2^63", "Default 512") is not a lab
/// figure and is not matched. Test sources are not scanned: their comments state timeouts and
/// polling intervals ("at most 30 s", "every 10 ms") that read like timings.
@Suite struct SourceCommentFigures {
    /// What a measurement looks like in a comment: an instruction count ("12 M instructions"),
    /// a share or a difference of a run ("10% of the guard pass", "8% slower"), a timing
    /// ("187 ms", "took 9.9 s"), a figure of the machine it was taken on.
    static let labFigure = try! NSRegularExpression(pattern: [
        #"\d[\d,.]*\s?[kMG]?\s?(?i:instructions)\b"#,
        #"\d[\d,.]*\s?%\s+(?i:of|more|fewer|less|slower|faster)\b"#,
        #"\d+(?:[,.]\d+)*\s?(?:ms|µs|ns)\b"#,
        #"\b(?i:took) (?:over |about )?\d"#,
        #"\b(?i:on (?:this|the development) (?:virtual )?machine)\b"#,
    ].joined(separator: "|"))

    /// The `//` comments of Swift source (the `///` of documentation included), with their lines.
    static func comments(of text: String) -> [(line: Int, text: String)] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { i, line in
            guard let start = line.range(of: "//") else { return nil }
            return (i + 1, String(line[start.lowerBound...]))
        }
    }

    /// "path:line: comment" for every comment under `directories` that cites a lab figure.
    static func figures(under directories: [String]) throws -> [String] {
        let root = TestPaths.packageRoot
        var found: [String] = []
        for directory in directories {
            guard let files = FileManager.default.enumerator(atPath: root.appendingPathComponent(directory).path) else { continue }
            for case let name as String in files where name.hasSuffix(".swift") {
                let path = directory + "/" + name
                let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
                for comment in comments(of: text)
                where labFigure.firstMatch(in: comment.text, range: NSRange(comment.text.startIndex..., in: comment.text)) != nil {
                    found.append("\(path):\(comment.line): \(comment.text)")
                }
            }
        }
        return found.sorted()
    }

    @Test func noSourceCommentCitesALabFigure() throws {
        let found = try Self.figures(under: ["Sources", "Benchmarks", "Fuzz/Sources"])
        #expect(found.isEmpty, """
            Comments cite measurements; keep the reason in the comment and move the figure to \
            docs/performance.md ("Why the code is shaped this way"):
            \(found.joined(separator: "\n"))
            """)
    }

    /// The patterns find the figures this suite was written against, and leave a format's
    /// figures alone.
    @Test func itTellsAFigureFromAFact() {
        func matches(_ s: String) -> Bool {
            Self.labFigure.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil
        }
        for cited in ["// that cost 12 M instructions on 10,000 records", "/// 29.6 M instructions for a file",
                      "// the walk's objects cost 10% of the guard pass", "// made 8% slower",
                      "/// 187 ms against 161 ms", "/// a 100,000-record archive took 9.9 s",
                      "/// 24,297 on this machine", "// 28% more instructions on decode"] {
            #expect(matches(cited), "\(cited)")
        }
        for fact in ["/// a 16-byte integer", "/// within -2^63 ... 2^64-1", "/// Default 512.",
                     "/// at most 30 s, then kills the group", "/// up to 128 bits", "// %25 for a percent sign",
                     "/// reads instructions from the file", "// NS.object.0, NS.object.1, ..."] {
            #expect(!matches(fact), "\(fact)")
        }
    }
}
