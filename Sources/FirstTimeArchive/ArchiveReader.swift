package import FirstTimeCore
internal import KeyedArchive
internal import Plist
package import PlistCore

/// Reading a bare archive's bytes (binary or XML) through libplist, with the walker over
/// libplist's own tree when the envelope is exactly NSKeyedArchiver's. The layout's names, the
/// encoder and the pure-Swift reader are `LegacyArchive`'s, in FirstTimeCore; a file of any
/// form is read through ``StateFile``.
package enum ArchiveReader {
    /// Decodes archive bytes (binary or XML) to records.
    /// - Throws: ``FirstTimeError`` saying what is wrong and where: the first finding of a fatal
    ///   rule (`ContractRule.isFatal`), or why the bytes are not an archive.
    package static func decode(_ bytes: [UInt8], limits: PlistLimits = .default) throws(FirstTimeError) -> FirstTimeRecords {
        try read(bytes, limits: limits).records
    }

    /// Decodes archive bytes to records and the findings of the rules that do not stop decoding
    /// (an `NSDictionary` root, an unrelated root key, a non-finite time, ...), which say what the
    /// device does differently from ycft.
    /// - Throws: ``FirstTimeError`` as ``decode(_:limits:)``.
    package static func read(_ bytes: [UInt8], limits: PlistLimits = .default) throws(FirstTimeError) -> ArchiveJudgement {
        let document: PlistDocument
        do { document = try PlistDocument(bytes, limits: limits) } catch { throw .archive(.plist(error)) }
        if let decoded = fastRead(document) { return decoded }
        // The checked path: the walker over the resolved archive.
        let value: PlistValue
        do { value = try document.value() } catch { throw .archive(.plist(error)) }
        return try LegacyArchive.read(plist: value)
    }

    /// The fast path for a binary archive: the same walker over libplist's tree, without
    /// building a `PlistValue` tree. Nil when the envelope is not exactly NSKeyedArchiver's
    /// or a fatal rule is broken (the checked path then gives the precise error).
    static func fastRead(_ document: PlistDocument) -> ArchiveJudgement? {
        guard let graph = NodeGraph(document) else { return nil }
        let judgement = ContractWalker.judge(graph, mode: .decode)
        return judgement.fatal == nil ? judgement : nil
    }
}
