/// Bounds applied to every property list before libplist sees it.
///
/// libplist 2.2.0 recurses once per nesting level and copies shared references instead of
/// caching them, so a small crafted file can crash it or make it allocate gigabytes. These
/// bounds are checked on the raw bytes first; work and memory stay linear in the input size.
public struct PlistLimits: Sendable, Equatable {
    /// Largest accepted input, in bytes. Default 256 MiB.
    public var maxInputSize: Int
    /// Deepest accepted nesting of arrays and dictionaries. Default 512.
    public var maxDepth: Int
    /// Nodes libplist may build per input byte once shared references are expanded. Default 4.
    public var expandedNodesPerByte: Int
    /// Node budget granted to any input however small. Default 100,000.
    public var minimumNodeBudget: Int

    /// Creates limits; the defaults suit every real preferences file and archive.
    public init(maxInputSize: Int = 256 << 20, maxDepth: Int = 512,
                expandedNodesPerByte: Int = 4, minimumNodeBudget: Int = 100_000) {
        self.maxInputSize = maxInputSize
        self.maxDepth = maxDepth
        self.expandedNodesPerByte = expandedNodesPerByte
        self.minimumNodeBudget = minimumNodeBudget
    }

    /// The default limits.
    public static let `default` = PlistLimits()

    /// The expanded-node budget for an input of `size` bytes.
    public func nodeBudget(forInputSize size: Int) -> Int {
        let (scaled, overflow) = size.multipliedReportingOverflow(by: expandedNodesPerByte)
        return max(minimumNodeBudget, overflow ? Int.max : scaled)
    }
}
