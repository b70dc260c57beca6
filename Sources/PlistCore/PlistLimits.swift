/// Bounds applied to every property list before libplist sees it.
///
/// libplist 2.2.0 recurses once per nesting level and copies shared references instead of
/// caching them, so a small crafted file can crash it or make it allocate gigabytes. These
/// bounds are checked on the raw bytes first; work and memory stay linear in the input size,
/// and below an absolute ceiling set by ``maxInputSize``: with the defaults, every command on
/// any input stays under 1 GiB of memory (a node libplist builds and ycft converts costs about
/// 250 bytes at worst, so the 2,097,152-node ceiling is about 500 MiB).
public struct PlistLimits: Sendable, Equatable {
    /// Largest accepted input, in bytes. Default 32 MiB (a YCFirstTime defaults file is a few
    /// kilobytes; a 100,000-record archive is 22 MiB). It also sets ``maxNodes`` and
    /// ``maxExpandedBytes``, so raising it raises what one input may cost.
    public var maxInputSize: Int
    /// Deepest accepted nesting of arrays and dictionaries. Default 512.
    public var maxDepth: Int
    /// Nodes libplist may build per input byte once shared references are expanded. Default 4.
    public var expandedNodesPerByte: Int
    /// Node budget granted to any input however small. Default 100,000.
    public var minimumNodeBudget: Int

    /// Creates limits; the defaults suit every real preferences file and archive.
    public init(maxInputSize: Int = 32 << 20, maxDepth: Int = 512,
                expandedNodesPerByte: Int = 4, minimumNodeBudget: Int = 100_000) {
        (self.maxInputSize, self.maxDepth) = (maxInputSize, maxDepth)
        (self.expandedNodesPerByte, self.minimumNodeBudget) = (expandedNodesPerByte, minimumNodeBudget)
    }

    /// The default limits.
    public static let `default` = PlistLimits()

    /// The most values any input may expand to, whatever its size: one per 16 bytes of
    /// ``maxInputSize`` (2,097,152 by default).
    public var maxNodes: Int { max(1, maxInputSize / 16) }

    /// The most string and data bytes any input may expand to once shared references are
    /// copied: twice ``maxInputSize`` (64 MiB by default).
    public var maxExpandedBytes: Int {
        let (doubled, overflow) = maxInputSize.multipliedReportingOverflow(by: 2)
        return overflow ? Int.max : doubled
    }

    /// The expanded-node budget for an input of `size` bytes: ``expandedNodesPerByte`` per byte,
    /// at least ``minimumNodeBudget``, never more than ``maxNodes``.
    public func nodeBudget(forInputSize size: Int) -> Int {
        let (scaled, overflow) = size.multipliedReportingOverflow(by: expandedNodesPerByte)
        return min(maxNodes, max(minimumNodeBudget, overflow ? Int.max : scaled))
    }
}
