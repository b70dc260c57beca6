import FirstTimeArchive
import Foundation

/// Help texts, locked by golden tests.
enum Help {
    static let exitStatus = """
    EXIT STATUS:
      0  success
      1  the input is not a valid archive or records file (a content problem)
      2  trouble: usage, unreadable input, unwritable output

    """

    static let main = """
    OVERVIEW: Read, check and rewrite the state archives of YCFirstTime.

    USAGE: ycft <subcommand>

    OPTIONS:
      --version               Show the version.
      -h, --help              Show help information.

    SUBCOMMANDS:
      dump                    Print the records of an archive as JSON.
      pack                    Write records (JSON) as a legacy archive.
      verify                  Check archives against the YCFirstTime contract.
      migrate                 Move state in defaults files to the plain format and back.
      status                  Would each gate run now, and when next?
      set                     Set one record's version or time, in place.
      unset                   Remove records, in place.
      reset                   YCFirstTime's reset(), in place.
      edit                    Edit the records in $VISUAL or $EDITOR, in place.
      help                    Show help for a subcommand.

    \(exitStatus)
      See 'ycft help <subcommand>' for detailed help.

    """

    static let dump = """
    OVERVIEW: Print the records of a YCFirstTime archive, or any archive or plist, as JSON.

    FILE is an NSKeyedArchiver archive (binary or XML) or an exported defaults file
    (binary or XML) that holds one as data under the key YCFirstTime, or a migrated
    one (YCFirstTime.records, or interval.* keys); which one is detected. The JSON
    goes to standard output, errors to standard error.

    With --raw, any archive's object graph is resolved from $top and printed with
    class names and chains, exact numbers, {"$data": base64}, {"$date": seconds since
    2001} and {"$real": "NaN"}; a reference back into the current path (a cycle) is
    {"$ref": uid}. A plist that is not an archive (a whole defaults file) is printed
    with the same mapping. --objects prints the flat $objects table with UIDs as
    {"$uid": n}.

    USAGE: ycft dump [--raw [--refs] | --objects] [--key NAME] [--compact] FILE|-

    ARGUMENTS:
      FILE|-                  The archive, defaults file or plist ('-' reads standard input).

    OPTIONS:
      --raw                   Print the whole object graph (any archive, any plist).
      --refs                  With --raw: print each object once, later occurrences as
                              {"$ref": uid}; objects referenced more than once carry
                              "$uid". Needed when shared objects would expand too far.
      --objects               Print the flat $objects table, UIDs as {"$uid": n}.
      --key NAME              The defaults key holding the archive. (default: YCFirstTime;
                              with --raw or --objects, show the archive under NAME
                              instead of the whole file)
      --compact               Print the JSON on one line.
      --max-input-size SIZE   Refuse inputs larger than SIZE bytes (K, M, G allowed).
                              (default: 32M)
      -h, --help              Show help information.

    \(exitStatus)
    """

    static let pack = """
    OVERVIEW: Write records in ycft's JSON form as a legacy YCFirstTime archive.

    The archive has Apple's NSKeyedArchiver layout, with NSMutableDictionary root and
    group, so YCFirstTime loads it and keeps every key on its next save. lastTime is
    used as given; when only lastTimeUTC is given it is parsed; when both are given
    and disagree beyond the precision of lastTimeUTC, pack refuses.

    USAGE: ycft pack [--plist-format binary|xml] [-o OUT|- | --into DEFAULTS_FILE [--key NAME]] [--force] FILE.json|-

    ARGUMENTS:
      FILE.json|-             The records ('-' reads standard input).

    OPTIONS:
      --plist-format binary|xml
                              The archive's property-list format. (default: binary;
                              was --format)
      -o, --output OUT|-      Where to write ('-' and /dev/stdout are standard output,
                              the default). A file is replaced atomically, keeping its
                              mode and owner; through a symbolic link, the file it
                              points to is replaced; a pipe or device is written to.
      --into DEFAULTS_FILE    Put the archive into a defaults file under --key (in
                              place of the old one; every other key stays), through
                              the same writer.
      --key NAME              The defaults key for --into. (default: YCFirstTime)
      --force                 Replace OUT even when it is read-only.
      --max-input-size SIZE   Refuse inputs larger than SIZE bytes (K, M, G allowed).
                              (default: 32M)
      -h, --help              Show help information.

    \(exitStatus)
    """

    /// The rule table as the README shows it (a test keeps the README equal to this).
    static var ruleTableMarkdown: String {
        var out = "| rule id | severity | reads records | on the device | meaning |\n|---|---|---|---|---|\n"
        for rule in FirstTimeArchive.ContractRule.allCases {
            let spec = rule.spec
            out += "| `\(rule.rawValue)` | \(spec.severity.rawValue) | \(spec.isFatal ? "no" : "yes") | \(spec.device.summary) | \(spec.summary) |\n"
        }
        return out
    }

    static var verify: String {
        let rules = FirstTimeArchive.ContractRule.allCases.map { rule in
            let id = "\(rule.rawValue) (\(rule.severity.rawValue))"
            return "  " + id.padding(toLength: 38, withPad: " ", startingAt: 0) + rule.summary
                + "\n  " + String(repeating: " ", count: 38) + "device: " + rule.spec.device.summary
        }.joined(separator: "\n")
        return """
        OVERVIEW: Check YCFirstTime archives against the persistence contract.

        Each FILE is an archive, an exported defaults file holding the state (the archive,
        the plain records or IntervalClient keys), or a directory searched recursively for
        files matching --include (*.plist by default). Every form a file holds is judged,
        and copies that disagree are reported. Every finding has a stable rule id, a
        severity, the object path and a message; each rule also says what YCFirstTime
        does with such a state on the device. All files are checked before the exit
        status is decided; json and junit print one document for the whole run.

        USAGE: ycft verify [--format text|json|github|junit] [--strict] [--key NAME] [--include GLOB]... PATH...

        ARGUMENTS:
          PATH...                 Archives, defaults files or directories ('-' reads
                                  standard input).

        OPTIONS:
          --format FORMAT         text: compiler-style lines on standard error (default);
                                  json: one document on standard output;
                                  github: workflow commands (::error ...) on standard output;
                                  junit: JUnit XML on standard output, a testcase per file.
          --strict                Warnings fail too.
          --compact               With --format json, JSON on one line.
          --key NAME              The defaults key holding the archive. (default: YCFirstTime)
          --include GLOB          In directories, check files whose name matches GLOB;
                                  repeatable. (default: *.plist)
          --max-input-size SIZE   Refuse inputs larger than SIZE bytes (K, M, G allowed).
                                  (default: 32M)
          -h, --help              Show help information.

        RULES:
        \(rules)

        EXIT STATUS:
          0  no errors (warnings allowed unless --strict)
          1  a finding fails
          2  trouble: usage, an unreadable file

        """
    }

    static let editWriting = """
    FILE is anything 'ycft dump' reads: an archive, a defaults file holding one, or a
    migrated defaults file. It is written back in the same form (an archive stays an
    archive; a defaults file keeps every other key, in place) through ycft's one writer:
    atomically, mode and owner kept, refused if another program changed the file
    meanwhile, or if it is read-only (unless --force).
    """

    /// The options every in-place edit command takes.
    static let editOptions = """
      --key NAME              The defaults key of the archive. (default: YCFirstTime)
      --force                 Replace FILE even when it is read-only.
      --max-input-size SIZE   Refuse inputs larger than SIZE bytes. (default: 32M)
      -h, --help              Show help information.
    """

    static let set = """
    OVERVIEW: Set one record's version or time, in place.

    \(editWriting)

    USAGE: ycft set [--last-version V | --no-last-version] [--last-time T [--seconds] | --no-last-time]
                    [--key NAME] [--force] FILE KEY

    ARGUMENTS:
      FILE                    The file to change.
      KEY                     The block key (created when it is not there).

    OPTIONS:
      --last-version V        The recorded version.
      --no-last-version       No recorded version (nil).
      --last-time T           The recorded time: ISO 8601 with an offset
                              (2025-01-01T10:00:00+01:00), 'now', or with --seconds exact
                              seconds since 2001 (757414800.123456).
      --no-last-time          No recorded time (nil).
      --seconds               --last-time is seconds since 2001.
      --key NAME              The defaults key of the archive. (default: YCFirstTime)
      --force                 Replace FILE even when it is read-only.
      --max-input-size SIZE   Refuse inputs larger than SIZE bytes. (default: 32M)
      -h, --help              Show help information.

    \(exitStatus)
    """

    static let unset = """
    OVERVIEW: Remove records, in place.

    \(editWriting)

    USAGE: ycft unset [--key NAME] [--force] FILE KEY...

    OPTIONS:
    \(editOptions)

    \(exitStatus)
    """

    static let reset = """
    OVERVIEW: YCFirstTime's reset(), in place.

    Removes the YCFirstTime key from a defaults file (YCFirstTime.records from a
    migrated one, every interval.* key from a file of IntervalClient keys); a bare
    archive becomes an empty one. Every other key stays.

    USAGE: ycft reset [--key NAME] [--force] FILE

    OPTIONS:
    \(editOptions)

    \(exitStatus)
    """

    static let edit = """
    OVERVIEW: Edit the records in $VISUAL or $EDITOR, in place.

    The records open as ycft's JSON form (what 'ycft dump' prints). Saved with a
    mistake, the editor opens again with the error on top; saved unchanged or empty,
    nothing is written. A valid change is written back as 'ycft set' writes.

    \(editWriting)

    USAGE: ycft edit [--key NAME] [--force] FILE

    OPTIONS:
    \(editOptions)

    \(exitStatus)
    """

    static let migrate = """
    OVERVIEW: Move YCFirstTime state in exported defaults files, one or thousands.

    Each PATH is a defaults file (binary or XML; what 'defaults export' writes, or an
    app's Library/Preferences/<id>.plist) or a directory searched recursively for
    files matching --include, *.plist by default (backups of an earlier --in-place run
    excepted; a directory where nothing matches is named on standard error). Every other key keeps its
    type, exact value and position, and a file keeps its format unless
    --plist-format says otherwise. A file already in the target state is 'unchanged'
    and not rewritten; one without source state is 'skipped'; target keys that exist
    with other content make the file 'fail' unless --force. Files are replaced
    atomically, keeping mode and owner; a file another program changed while ycft
    worked on it is not replaced (it fails); one bad file never stops the rest.

    USAGE: ycft migrate [--to records|interval|legacy]
                        (-o OUT | --in-place [--backup SUFFIX|--no-backup] | --dry-run)
                        [--keep-source] [--force] [--drop-versions] [--key NAME]
                        [--include GLOB]... [--jobs N] [--report FILE]
                        [--plist-format same|binary|xml] PATH...

    ARGUMENTS:
      PATH...                 Defaults files or directories.

    OPTIONS:
      --to TARGET             records: YCFirstTime.records, the plain format (default);
                              interval: interval.<key> = seconds since 1970, plus
                              YCFirstTime.records for the versions;
                              legacy: rebuild the YCFirstTime archive (rollback) from
                              YCFirstTime.records, or else from interval.* keys.
      -o, --output OUT        Write results to OUT (a file for one input file, '-' for
                              standard output, else a
                              directory: a file found in directory D lands at
                              OUT/<its path below D>, a file operand at OUT/<the
                              operand's path>). Inputs are untouched; two inputs
                              meeting at one output, or an output that is an input,
                              are refused before anything is written.
      --in-place              Replace each file, keeping FILE.bak unless --no-backup.
                              An existing backup is never replaced: FILE.bak.1, ...
      --backup SUFFIX         The backup suffix with --in-place. (default: .bak)
      --no-backup             No backup with --in-place.
      --dry-run               Write nothing; print what would change per file.
      --keep-source           Keep the source keys (the archive, or on rollback the
                              plain and interval keys).
      --force                 Overwrite target keys that hold other content, and
                              replace read-only files.
      --drop-versions         With --to interval: do not write YCFirstTime.records;
                              the versions are lost (each file says which).
      --key NAME              The key of the legacy archive. (default: YCFirstTime)
      --include GLOB          In directories, take files whose name matches GLOB;
                              repeatable. (default: *.plist)
      -j, --jobs N            Files processed at once. (default: the number of cores)
      --report FILE|-         Write a JSON report, one entry per file ('-' is
                              standard output).
      --compact               The report's JSON on one line.
      --plist-format FORMAT   same, binary or xml. (default: same; was --output-format)
      --max-input-size SIZE   Refuse inputs larger than SIZE bytes (K, M, G allowed).
                              (default: 32M)
      -h, --help              Show help information.

    EXIT STATUS:
      0  nothing failed
      1  a file failed on its content
      2  trouble: usage, an unreadable or unwritable path

    """

    static let status = """
    OVERVIEW: Would each gate run now, and when next?

    FILE is anything 'ycft dump' reads, or a migrated defaults file (YCFirstTime.records,
    or interval.* keys). Prints one row per record and, for each --gate, whether its
    block would run now and the earliest moment it becomes eligible.

    USAGE: ycft status [--app-version V|--no-app-version] [--now ISO8601] [--time-zone TZ] [--legacy-day]
                       [--gate KEY=RULE]... [--format text|json] [--key NAME]
                       [--max-input-size SIZE] FILE|-

    ARGUMENTS:
      FILE|-                  The archive or defaults file ('-' reads standard input).

    OPTIONS:
      --app-version V         The running app's version (CFBundleShortVersionString);
                              needed by per-version gates.
      --no-app-version        The app has no CFBundleShortVersionString.
      --now ISO8601           The moment to judge at, like 2025-01-01T09:00:00Z or
                              2025-01-01T10:00:00+01:00. (default: the current time)
      --time-zone TZ          IANA time zone for calendar rules, and a column of local
                              times. (default: UTC, and no local column)
      --legacy-day            days:<n> uses YCFirstTime 1.x's 84,600-second day.
      --gate KEY=RULE         A gate to judge; repeatable. RULE is one of:
                                once             YCFirstTime executeOnce
                                per-version      executeOncePerVersion (exact string)
                                days:<n>         executeOncePerInterval(days:): 86,400 s
                                                 days, a Float (days:0.5); days <= 0
                                                 is once; a record without a time never
                                                 runs again; runs at the boundary
                                hourly, daily, weekly, monthly, yearly
                                every:<n><unit>  IntervalClient's calendar rules (every:1day
                                                 is a calendar day, not days:1), any integer
                                                 n; unit: era, year, quarter, month, week,
                                                 weekOfYear, weekOfMonth, weekday,
                                                 weekdayOrdinal, yearForWeekOfYear, day,
                                                 hour, minute, second, nanosecond
      --format FORMAT         text (default) or json.
      --compact               JSON on one line.
      --key NAME              The defaults key of the archive. (default: YCFirstTime)
      --max-input-size SIZE   Refuse inputs larger than SIZE bytes (K, M, G allowed).
                              (default: 32M)
      -h, --help              Show help information.

    \(exitStatus)
    """
}
