#include "templatepatcher.h"

#include "common/logging.h"
#include "templateloader.h"
#include "templatewriter.h"

#include <QHash>
#include <QRegularExpression>
#include <QSet>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <limits>
#include <vector>

namespace ClusterDeck {

namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

// One replacement of the byte range [start, end) of the original text.
struct Edit
{
    qsizetype start = 0;
    qsizetype end = 0;
    QByteArray text;
};

enum class Style { Plain, Single, Double, Literal, Folded };

bool equalNodes(const YAML::Node &a, const YAML::Node &b)
{
    const bool aSet = a.IsDefined() && !a.IsNull();
    const bool bSet = b.IsDefined() && !b.IsNull();
    if (!aSet || !bSet)
        return aSet == bSet;
    if (a.Type() != b.Type())
        return false;
    if (a.IsScalar())
        return a.Scalar() == b.Scalar();
    if (a.size() != b.size())
        return false;
    if (a.IsSequence()) {
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (!equalNodes(a[i], b[i]))
                return false;
        }
        return true;
    }
    for (auto it = a.begin(); it != a.end(); ++it) {
        const YAML::Node other = b[it->first.Scalar()];
        if (!other.IsDefined() || !equalNodes(it->second, other))
            return false;
    }
    return true;
}

// `failurePolicy: ACTION` says `{action: ACTION}` with the default maxRestarts: whether
// `policy` (as the writer writes it) can be written so.
bool isShortFailurePolicy(const YAML::Node &policy)
{
    if (!policy.IsMap() || !policy["action"].IsScalar())
        return false;
    const YAML::Node restarts = policy["maxRestarts"];
    const std::string defaultRestarts = std::to_string(FailurePolicy{}.maxRestarts);
    return policy.size() == 1 ||
           (policy.size() == 2 && restarts.IsScalar() && restarts.Scalar() == defaultRestarts);
}

// `command: "script"` is short for `[/bin/sh, -c, "script"]`: the script, when `n` is either.
std::optional<std::string> scriptOf(const YAML::Node &n)
{
    if (n.IsScalar())
        return n.Scalar();
    if (n.IsSequence() && n.size() == 3 && n[0].IsScalar() && n[0].Scalar() == "/bin/sh" &&
        n[1].IsScalar() && n[1].Scalar() == "-c" && n[2].IsScalar())
        return n[2].Scalar();
    return std::nullopt;
}

YAML::Node scriptAsList(const std::string &script)
{
    YAML::Node list(YAML::NodeType::Sequence);
    list.push_back("/bin/sh");
    list.push_back("-c");
    list.push_back(script);
    return list;
}

QByteArray spaces(int n)
{
    return QByteArray(std::max(n, 0), ' ');
}

// --- Writing values in the samples' style -------------------------------------------------------

bool plainSafe(const QString &s, bool flow)
{
    if (s.isEmpty() || s.front().isSpace() || s.back().isSpace())
        return false;
    static const QString indicators = QStringLiteral("-?:,[]{}#&*!|>'\"%@`");
    const QChar first = s.front();
    if (indicators.contains(first)) {
        // `-x`, `:x`, `?x` are plain when followed by a non-space (`-c`, `-f`).
        const bool dashLike =
            (first == u'-' || first == u'?' || first == u':') && s.size() > 1 && !s.at(1).isSpace();
        if (!dashLike)
            return false;
    }
    if (s.startsWith(QLatin1String("---")) || s.startsWith(QLatin1String("...")) ||
        s.contains(u'\n') || s.contains(u'\r') || s.contains(u'\t') ||
        s.contains(QLatin1String(": ")) || s.contains(QLatin1String(" #")) || s.endsWith(u':'))
        return false;
    if (flow && (s.contains(u',') || s.contains(u'[') || s.contains(u']') || s.contains(u'{') ||
                 s.contains(u'}')))
        return false;
    // Other YAML readers would take these for booleans or null.
    static const QStringList special{QStringLiteral("true"), QStringLiteral("false"),
                                     QStringLiteral("yes"),  QStringLiteral("no"),
                                     QStringLiteral("on"),   QStringLiteral("off"),
                                     QStringLiteral("null"), QStringLiteral("~"),
                                     QStringLiteral("y"),    QStringLiteral("n")};
    return !special.contains(s.toLower());
}

QByteArray doubleQuoted(const QString &s)
{
    QByteArray out = "\"";
    for (const QChar c : s) {
        switch (c.unicode()) {
        case '\\':
            out += "\\\\";
            break;
        case '"':
            out += "\\\"";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        case '\r':
            out += "\\r";
            break;
        default:
            if (c.unicode() < 0x20)
                out += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0')).toUtf8();
            else
                out += QString(c).toUtf8();
        }
    }
    return out + '"';
}

// A literal block (`|`, `|-`) when it reads back as `s`: `indent` is the owner's column.
std::optional<QByteArray> literalBlock(const QString &s, int indent)
{
    if (s.isEmpty() || s.front() == u' ' || s.contains(u'\r') || s.endsWith(QLatin1String("\n\n")))
        return std::nullopt;
    const bool clip = s.endsWith(u'\n');
    const QStringList lines = (clip ? s.chopped(1) : s).split(u'\n');
    // The first line with text sets the block's indentation: it must not start deeper.
    const auto first =
        std::find_if(lines.cbegin(), lines.cend(), [](const QString &l) { return !l.isEmpty(); });
    if (first == lines.cend() || first->startsWith(u' '))
        return std::nullopt;
    QByteArray out = clip ? "|" : "|-";
    for (const QString &line : lines) {
        // A line of blanks only would be read as an empty line.
        if (!line.isEmpty() && line.trimmed().isEmpty())
            return std::nullopt;
        out += '\n';
        if (!line.isEmpty())
            out += spaces(indent + 2) + line.toUtf8();
    }
    return out;
}

// A folded block (`>`, `>-`) of one paragraph, broken between words as the sample's lines are.
std::optional<QByteArray> foldedBlock(const QString &s, int indent)
{
    const bool clip = s.endsWith(u'\n');
    const QString body = clip ? s.chopped(1) : s;
    if (body.isEmpty() || body.contains(u'\n') || body.front().isSpace() || body.back().isSpace() ||
        body.contains(QLatin1String("  ")) || body.contains(u'\t'))
        return std::nullopt;
    const int width = std::max(40, 100 - (indent + 2));
    QByteArray out = clip ? ">" : ">-";
    QString line;
    for (const QString &word : body.split(u' ')) {
        if (!line.isEmpty() && line.size() + 1 + word.size() > width) {
            out += '\n' + spaces(indent + 2) + line.toUtf8();
            line.clear();
        }
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    out += '\n' + spaces(indent + 2) + line.toUtf8();
    return out;
}

// A scalar value as written after `key: ` or `- `, in `preferred` style where the value allows.
QByteArray scalarText(const QString &value, Style preferred, int indent, bool flow)
{
    if (!flow) {
        if (preferred == Style::Folded) {
            if (auto folded = foldedBlock(value, indent))
                return *folded;
        }
        // Scripts read as scripts: a multi-line value is a literal block wherever it can be.
        if (preferred == Style::Literal || preferred == Style::Folded || value.contains(u'\n')) {
            if (auto literal = literalBlock(value, indent))
                return *literal;
        }
    }
    if (preferred == Style::Single && !value.contains(u'\n'))
        return "'" + value.toUtf8().replace("'", "''") + "'";
    if (preferred == Style::Double || !plainSafe(value, flow))
        return doubleQuoted(value);
    return value.toUtf8();
}

QByteArray flowText(const YAML::Node &n)
{
    if (n.IsScalar())
        return scalarText(qs(n.Scalar()), Style::Plain, 0, true);
    if (!n.IsDefined() || n.IsNull())
        return "null";
    QList<QByteArray> items;
    if (n.IsSequence()) {
        for (const YAML::Node &item : n)
            items.append(flowText(item));
        return "[" + items.join(", ") + "]";
    }
    for (auto it = n.begin(); it != n.end(); ++it)
        items.append(QByteArray::fromStdString(it->first.Scalar()) + ": " + flowText(it->second));
    return "{" + items.join(", ") + "}";
}

bool isBlockCollection(const YAML::Node &n, bool forceFlow)
{
    return (n.IsMap() || n.IsSequence()) && n.size() > 0 && !forceFlow &&
           n.Style() != YAML::EmitterStyle::Flow;
}

QByteArray valueAfterKey(const YAML::Node &v, int keyColumn, bool forceFlow = false);

// The lines of a block collection whose entries start at column `indent`, each ending in '\n'.
QByteArray blockLines(const YAML::Node &n, int indent)
{
    QByteArray out;
    if (n.IsMap()) {
        for (auto it = n.begin(); it != n.end(); ++it)
            out += spaces(indent) + QByteArray::fromStdString(it->first.Scalar()) + ":" +
                   valueAfterKey(it->second, indent) + '\n';
        return out;
    }
    for (const YAML::Node &item : n) {
        QByteArray text;
        if (isBlockCollection(item, false))
            text = blockLines(item, indent + 2).mid(indent + 2).chopped(1);
        else if (item.IsMap() || item.IsSequence())
            text = flowText(item);
        else if (item.IsScalar())
            text = scalarText(qs(item.Scalar()), Style::Plain, indent, false);
        out += spaces(indent) + "- " + text + '\n';
    }
    return out;
}

// What follows `key:` for the value `v` of a key at `keyColumn` (no final newline).
QByteArray valueAfterKey(const YAML::Node &v, int keyColumn, bool forceFlow)
{
    if (!v.IsDefined() || v.IsNull())
        return {};
    if (v.IsScalar())
        return ' ' + scalarText(qs(v.Scalar()), Style::Plain, keyColumn, false);
    if (!isBlockCollection(v, forceFlow))
        return ' ' + flowText(v);
    return '\n' + blockLines(v, keyColumn + 2).chopped(1);
}

// What follows `- ` for the item `v` of a sequence whose dash is at `dashColumn`.
QByteArray valueAfterDash(const YAML::Node &v, int dashColumn, bool forceFlow = false)
{
    if (!v.IsDefined() || v.IsNull())
        return {};
    if (v.IsScalar())
        return scalarText(qs(v.Scalar()), Style::Plain, dashColumn, false);
    if (!isBlockCollection(v, forceFlow))
        return flowText(v);
    return blockLines(v, dashColumn + 2).mid(dashColumn + 2).chopped(1);
}

// --- Finding spans in the original text --------------------------------------------------------

// Where a value is written: after `key:` (a mapping entry) or after `- ` (a sequence item).
struct Slot
{
    qsizetype afterIndicator = 0; // just after the ':' or '-' (and after an anchor, if any)
    int ownerColumn = 0;          // the key's or the dash's column
    bool item = false;
    QString path;     // in the text: "roles[1].task.command"
    QString wantPath; // the same value in the edited template (roles may have moved)
    int depth = 0;
};

class Patch
{
public:
    Patch(const QByteArray &text, int maxDepth)
        : m_text(text)
        , m_maxDepth(maxDepth)
    {
        m_lineStarts.push_back(0);
        for (qsizetype i = 0; i < m_text.size(); ++i) {
            if (m_text.at(i) == '\n')
                m_lineStarts.push_back(i + 1);
        }
    }

    Result<QByteArray> run(const YAML::Node &doc, const YAML::Node &base, const YAML::Node &want)
    {
        findAliases(doc, {});
        m_want = want;
        m_base = base;
        std::vector<Edit> edits;
        patchMap(doc, base, want, QString(), QString(), 0, edits);
        if (!m_problem.isEmpty())
            return fail(Error::Kind::Invalid, QString(), m_problem);
        return apply(m_text, 0, edits);
    }

private:
    // --- positions

    qsizetype offset(const YAML::Mark &mark) const
    {
        if (mark.line < 0 || std::size_t(mark.line) >= m_lineStarts.size())
            return m_text.size();
        return std::min<qsizetype>(m_lineStarts.at(mark.line) + mark.column, m_text.size());
    }
    char at(qsizetype i) const { return i >= 0 && i < m_text.size() ? m_text.at(i) : '\n'; }
    qsizetype lineStart(qsizetype pos) const
    {
        while (pos > 0 && m_text.at(pos - 1) != '\n')
            --pos;
        return pos;
    }
    qsizetype lineEnd(qsizetype pos) const
    {
        const qsizetype nl = m_text.indexOf('\n', pos);
        return nl < 0 ? m_text.size() : nl;
    }
    // Past the line's '\n' (or the end of the text).
    qsizetype nextLine(qsizetype pos) const
    {
        const qsizetype end = lineEnd(pos);
        return end < m_text.size() ? end + 1 : end;
    }
    int indentOf(qsizetype lineStartPos) const
    {
        int n = 0;
        while (at(lineStartPos + n) == ' ')
            ++n;
        return n;
    }
    bool isBlank(qsizetype lineStartPos) const
    {
        const int n = indentOf(lineStartPos);
        return at(lineStartPos + n) == '\n' || lineStartPos + n >= m_text.size();
    }
    bool isComment(qsizetype lineStartPos) const
    {
        return at(lineStartPos + indentOf(lineStartPos)) == '#';
    }
    qsizetype skipSpaces(qsizetype pos) const
    {
        while (at(pos) == ' ' || at(pos) == '\t')
            ++pos;
        return pos;
    }

    // The end of the last line that belongs to a block starting on `pos`'s line: following lines
    // indented deeper than `owner` (or, for a sequence written at its key's column, its items).
    // Comment lines end a block collection unless more of it follows; in a block scalar they are
    // text.
    qsizetype blockEnd(qsizetype pos, int owner, bool scalarContent, bool itemsAtOwner) const
    {
        qsizetype end = lineEnd(pos);
        for (qsizetype ls = nextLine(pos); ls < m_text.size(); ls = nextLine(ls)) {
            if (isBlank(ls))
                continue;
            const int indent = indentOf(ls);
            const bool ownItem = itemsAtOwner && indent == owner && at(ls + indent) == '-' &&
                                 (at(ls + indent + 1) == ' ' || at(ls + indent + 1) == '\n');
            if (indent <= owner && !ownItem) {
                if (scalarContent || !isComment(ls) || indent < owner)
                    break;
                continue; // a comment at the owner's column may introduce what follows
            }
            if (!scalarContent && isComment(ls))
                continue;
            end = lineEnd(ls);
        }
        return end;
    }

    qsizetype quotedEnd(qsizetype pos) const
    {
        const char quote = at(pos);
        for (qsizetype i = pos + 1; i < m_text.size(); ++i) {
            if (quote == '"' && m_text.at(i) == '\\')
                ++i;
            else if (quote == '\'' && m_text.at(i) == '\'' && at(i + 1) == '\'')
                ++i;
            else if (m_text.at(i) == quote)
                return i + 1;
        }
        return m_text.size();
    }

    qsizetype flowEnd(qsizetype pos) const
    {
        int depth = 0;
        for (qsizetype i = pos; i < m_text.size(); ++i) {
            const char c = m_text.at(i);
            if (c == '"' || c == '\'') {
                i = quotedEnd(i) - 1;
            } else if (c == '[' || c == '{') {
                ++depth;
            } else if (c == ']' || c == '}') {
                if (--depth == 0)
                    return i + 1;
            } else if (c == '#' && i > 0 && (m_text.at(i - 1) == ' ' || m_text.at(i - 1) == '\n')) {
                i = lineEnd(i) - 1;
            }
        }
        return m_text.size();
    }

    // The end of an item of a flow collection starting at `pos`.
    qsizetype flowItemEnd(qsizetype pos) const
    {
        const char c = at(pos);
        if (c == '"' || c == '\'')
            return quotedEnd(pos);
        if (c == '[' || c == '{')
            return flowEnd(pos);
        qsizetype i = pos;
        while (i < m_text.size() && !QByteArrayView(",]}\n").contains(m_text.at(i)) &&
               !(m_text.at(i) == '#' && at(i - 1) == ' '))
            ++i;
        while (i > pos && m_text.at(i - 1) == ' ')
            --i;
        return i;
    }

    // The end of a scalar, flow collection, alias or block scalar written at `pos`.
    qsizetype inlineEnd(qsizetype pos, int owner) const
    {
        const char c = at(pos);
        if (c == '"' || c == '\'')
            return quotedEnd(pos);
        if (c == '[' || c == '{')
            return flowEnd(pos);
        if (c == '|' || c == '>')
            return blockEnd(pos, owner, true, false);
        qsizetype i = pos;
        while (i < m_text.size() && m_text.at(i) != '\n' &&
               !(m_text.at(i) == '#' && at(i - 1) == ' '))
            ++i;
        while (i > pos && m_text.at(i - 1) == ' ')
            --i;
        if (c == '*')
            return i;
        // A plain scalar may go on over deeper indented lines.
        return std::max(i, blockEnd(pos, owner, false, false) == lineEnd(pos)
                               ? i
                               : blockEnd(pos, owner, false, false));
    }

    // Where the value of `slot` is written: [start, end); start == end for an empty value.
    std::pair<qsizetype, qsizetype> span(const Slot &slot, const YAML::Node &node) const
    {
        const qsizetype start = skipSpaces(slot.afterIndicator);
        const char c = at(start);
        if (c != '\n' && c != '#' && start < m_text.size())
            return {start, inlineEnd(start, slot.ownerColumn)};
        if (!node.IsDefined() || node.IsNull() || !(node.IsMap() || node.IsSequence()))
            return {slot.afterIndicator, slot.afterIndicator};
        const qsizetype nodeStart = offset(node.Mark());
        const bool itemsAtOwner = node.IsSequence() && int(node.Mark().column) == slot.ownerColumn;
        return {nodeStart, blockEnd(nodeStart, slot.ownerColumn, false, itemsAtOwner)};
    }

    // Where an anchor (`&name`) ends when the value at `pos` has one, else `pos`.
    qsizetype afterAnchor(qsizetype pos) const
    {
        const qsizetype start = skipSpaces(pos);
        if (at(start) != '&')
            return pos;
        qsizetype i = start;
        while (i < m_text.size() && m_text.at(i) != ' ' && m_text.at(i) != '\n')
            ++i;
        return i;
    }

    Style styleAt(qsizetype pos) const
    {
        switch (at(pos)) {
        case '"':
            return Style::Double;
        case '\'':
            return Style::Single;
        case '|':
            return Style::Literal;
        case '>':
            return Style::Folded;
        default:
            return Style::Plain;
        }
    }

    // --- aliases

    // Records which paths are aliases (`task: *trainer`) and of which anchored path: their text
    // is not theirs to patch, and a change of the anchored node changes them too.
    void findAliases(const YAML::Node &n, const QString &path)
    {
        for (const auto &[seen, seenPath] : m_visited) {
            if (seen.is(n)) {
                m_aliasOf.insert(path, seenPath);
                return;
            }
        }
        if (n.IsMap() || n.IsSequence())
            m_visited.emplace_back(n, path);
        if (n.IsMap()) {
            for (auto it = n.begin(); it != n.end(); ++it)
                findAliases(it->second, childPath(path, qs(it->first.Scalar())));
        } else if (n.IsSequence()) {
            for (std::size_t i = 0; i < n.size(); ++i)
                findAliases(n[i], path + QStringLiteral("[%1]").arg(i));
        }
    }

    bool holdsAlias(const QString &path) const
    {
        for (auto it = m_aliasOf.cbegin(); it != m_aliasOf.cend(); ++it) {
            const QString &alias = it.key();
            if (alias.startsWith(path) &&
                (alias.size() == path.size() || alias.at(path.size()) == u'.' ||
                 alias.at(path.size()) == u'['))
                return true;
        }
        return false;
    }

    static QString childPath(const QString &path, const QString &key)
    {
        return path.isEmpty() ? key : path + u'.' + key;
    }

    // The wanted value at a path of the text, following the items that moved; undefined when
    // the item holding it was removed.
    YAML::Node wantAtTextPath(const QString &path) const
    {
        QString wantPath = path;
        qsizetype longest = -1;
        for (auto it = m_wantPathOf.cbegin(); it != m_wantPathOf.cend(); ++it) {
            const QString &prefix = it.key();
            if (prefix.size() > longest && path.startsWith(prefix) &&
                (path.size() == prefix.size() || path.at(prefix.size()) == u'.' ||
                 path.at(prefix.size()) == u'[')) {
                longest = prefix.size();
                wantPath = it.value().isEmpty() ? QString() : it.value() + path.mid(prefix.size());
            }
        }
        if (wantPath.isEmpty())
            return YAML::Node(YAML::NodeType::Undefined);
        return nodeAt(m_want, wantPath);
    }

    // The node at `path` ("roles[1].task") below `root`; undefined when there is none.
    static YAML::Node nodeAt(const YAML::Node &root, const QString &path)
    {
        YAML::Node n = root;
        static const QRegularExpression part(QStringLiteral(R"(([^.\[\]]+)|\[(\d+)\])"));
        for (auto it = part.globalMatch(path); it.hasNext();) {
            const auto m = it.next();
            const YAML::Node current = n;
            if (!current.IsDefined())
                break;
            if (!m.captured(1).isEmpty())
                n.reset(current.IsMap() ? current[m.captured(1).toStdString()]
                                        : YAML::Node(YAML::NodeType::Undefined));
            else
                n.reset(current.IsSequence() ? current[m.captured(2).toULongLong()]
                                             : YAML::Node(YAML::NodeType::Undefined));
        }
        return n;
    }

    // --- patching

    // A comment after a one-line value stays on the key's line when the value becomes a block
    // (else it would end up inside a block scalar's text).
    void pushValueEdit(std::vector<Edit> &edits, qsizetype start, qsizetype end,
                       QByteArray text) const
    {
        const qsizetype eol = lineEnd(end);
        if (text.contains('\n') && lineEnd(start) == eol) {
            const QByteArray rest = m_text.mid(end, eol - end);
            if (rest.trimmed().startsWith('#')) {
                const qsizetype nl = text.indexOf('\n');
                text = text.left(nl) + rest + text.mid(nl);
                end = eol;
            }
        }
        edits.push_back({start, end, text});
    }

    // An alias (`task: *trainer`) becomes a value of its own: a copy of the anchored text (comments
    // and style come along) with what the alias's role changed patched into the copy; `want`
    // written anew where the anchored text cannot be copied.
    void materialize(const Slot &alias, const QString &anchorPath, const YAML::Node &want,
                     std::vector<Edit> &edits)
    {
        const auto anchored = std::find_if(m_visited.cbegin(), m_visited.cend(),
                                           [&](const auto &v) { return v.second == anchorPath; });
        const qsizetype anchorAt =
            anchored == m_visited.cend() ? -1 : offset(anchored->first.Mark());
        const qsizetype keyLine = anchorAt < 0 ? 0 : lineStart(anchorAt);
        const int keyColumn = indentOf(keyLine);
        // Only a block value under a key of the same depth, anchored at the end of the key's
        // line, can be copied as it is.
        const bool copyable = anchorAt >= 0 && at(anchorAt) == '&' &&
                              at(keyLine + keyColumn) != '-' && keyColumn == alias.ownerColumn &&
                              (anchored->first.IsMap() || anchored->first.IsSequence()) &&
                              anchored->first.Style() != YAML::EmitterStyle::Flow;
        if (copyable) {
            const qsizetype anchorEnd = skipSpaces(afterAnchor(anchorAt));
            const qsizetype body = nextLine(anchorAt);
            const qsizetype end = blockEnd(anchorAt, keyColumn, false, false);
            const qsizetype aliasStart = skipSpaces(alias.afterIndicator);
            // The alias's own changes, made on the anchored text as if it were the alias's.
            std::vector<Edit> inner;
            const Slot asAnchor{afterAnchor(anchorAt), keyColumn,  false, anchorPath,
                                alias.wantPath,        alias.depth};
            patchValue(anchored->first, nodeAt(m_base, anchorPath), want, asAnchor, inner);
            const qsizetype chunkEnd = nextLine(end);
            const bool inside = std::all_of(inner.cbegin(), inner.cend(), [&](const Edit &e) {
                return e.start >= body && e.end <= chunkEnd;
            });
            auto copy = apply(m_text.mid(body, chunkEnd - body), body, inner);
            if ((at(anchorEnd) == '\n' || at(anchorEnd) == '#') && body < end &&
                at(aliasStart) == '*' && inside && copy && m_problem.isEmpty()) {
                if (copy->endsWith('\n'))
                    copy->chop(1);
                pushValueEdit(edits, alias.afterIndicator, inlineEnd(aliasStart, alias.ownerColumn),
                              '\n' + *copy);
                return;
            }
            m_problem.clear();
        }
        replaceWhole(alias, YAML::Node(), want, edits);
    }

    void replaceWhole(const Slot &slot, const YAML::Node &doc, const YAML::Node &want,
                      std::vector<Edit> &edits)
    {
        const auto [start, end] = span(slot, doc);
        const bool flow = at(start) == '[' || at(start) == '{';
        if (!want.IsDefined() || want.IsNull()) {
            edits.push_back({slot.afterIndicator, end, {}});
            return;
        }
        const QByteArray text = slot.item ? ' ' + valueAfterDash(want, slot.ownerColumn, flow)
                                          : valueAfterKey(want, slot.ownerColumn, flow);
        pushValueEdit(edits, slot.afterIndicator, end, text);
    }

    void patchValue(const YAML::Node &doc, const YAML::Node &base, const YAML::Node &wanted,
                    const Slot &slot, std::vector<Edit> &edits)
    {
        YAML::Node want = wanted;
        if (auto anchor = m_aliasOf.constFind(slot.path); anchor != m_aliasOf.cend()) {
            // An alias stays while it still means what is wanted and still comes after its
            // anchor; else it becomes its own value.
            if (m_aliasesBeforeAnchor.contains(slot.path) ||
                !equalNodes(wantAtTextPath(*anchor), want))
                materialize(slot, *anchor, want, edits);
            return;
        }
        // An unchanged value is left alone, unless an alias in it may need to become a value.
        const bool same = equalNodes(base, want);
        if (same && (!holdsAlias(slot.path) || slot.depth >= m_maxDepth))
            return;
        const auto [start, end] = span(slot, doc);
        const QString key = slot.path.section(u'.', -1);
        const bool commandLike =
            key == QLatin1String("command") || key == QLatin1String("entrypoint");
        if (commandLike && doc.IsScalar()) {
            if (const auto script = scriptOf(want)) {
                pushValueEdit(edits, start, end,
                              scalarText(qs(*script), styleAt(start), slot.ownerColumn, false));
                return;
            }
        }
        if (commandLike && doc.IsSequence() && want.IsScalar())
            want.reset(scriptAsList(want.Scalar()));
        // `failurePolicy: ignore` is short for `{action: ignore}` with the default maxRestarts.
        if (key == QLatin1String("failurePolicy") && slot.depth == 1 && doc.IsScalar() &&
            isShortFailurePolicy(want)) {
            const QString action = qs(std::as_const(want)["action"].Scalar());
            pushValueEdit(edits, start, end,
                          scalarText(action, styleAt(start), slot.ownerColumn, false));
            return;
        }
        const bool block = at(start) != '[' && at(start) != '{';
        if (slot.depth >= m_maxDepth) {
            replaceWhole(slot, doc, want, edits);
        } else if (doc.IsScalar() && want.IsScalar() && start < end) {
            pushValueEdit(edits, start, end,
                          scalarText(qs(want.Scalar()), styleAt(start), slot.ownerColumn, false));
        } else if (doc.IsMap() && want.IsMap() && block && base.IsMap()) {
            patchMap(doc, base, want, slot.path, slot.wantPath, slot.depth, edits);
        } else if (doc.IsMap() && want.IsMap() && !block && base.IsMap()) {
            patchFlowMap(doc, base, want, start, end, edits);
        } else if (doc.IsSequence() && want.IsSequence() &&
                   (base.IsSequence() || base.IsScalar())) {
            const YAML::Node baseList = base.IsScalar() ? scriptAsList(base.Scalar()) : base;
            if (block)
                patchBlockSequence(doc, baseList, want, slot, edits);
            else
                patchFlowSequence(doc, baseList, want, start, end, edits);
        } else {
            replaceWhole(slot, doc, want, edits);
        }
    }

    struct Entry
    {
        QString key;
        qsizetype keyStart = 0; // where the key is written
        int column = 0;
        qsizetype colonEnd = 0;
        YAML::Node value;
    };

    std::vector<Entry> entriesOf(const YAML::Node &map) const
    {
        std::vector<Entry> entries;
        for (auto it = map.begin(); it != map.end(); ++it) {
            Entry e;
            e.key = qs(it->first.Scalar());
            e.keyStart = offset(it->first.Mark());
            e.column = int(it->first.Mark().column);
            // The key may be quoted; its ':' is the first one after it outside quotes.
            qsizetype i = e.keyStart;
            if (at(i) == '"' || at(i) == '\'')
                i = quotedEnd(i);
            while (i < m_text.size() && m_text.at(i) != ':')
                ++i;
            e.colonEnd = afterAnchor(i + 1);
            e.value = it->second;
            entries.push_back(e);
        }
        return entries;
    }

    void patchMap(const YAML::Node &doc, const YAML::Node &base, const YAML::Node &want,
                  const QString &path, const QString &wantPath, int depth, std::vector<Edit> &edits)
    {
        const std::vector<Entry> entries = entriesOf(doc);
        if (entries.empty()) {
            m_problem = QStringLiteral("%1: cannot patch an empty mapping").arg(path);
            return;
        }
        auto find = [&](const QString &key) {
            return std::find_if(entries.begin(), entries.end(),
                                [&](const Entry &e) { return e.key == key; });
        };
        const int column = entries.front().column;
        // The first entry of a sequence item shares the item's `- ` line.
        const bool firstOnDashLine =
            indentOf(lineStart(entries.front().keyStart)) != entries.front().column;
        auto slotOf = [&](const Entry &e) {
            return Slot{
                e.colonEnd, e.column, false, childPath(path, e.key), childPath(wantPath, e.key),
                depth + 1};
        };
        auto entryEnd = [&](const Entry &e) {
            return span(slotOf(e), e.value).second;
        };

        // Removed fields: their lines go (keys the writer does not know stay, e.g. `extends`).
        for (const Entry &e : entries) {
            const std::string k = e.key.toStdString();
            if (want[k].IsDefined() || !base[k].IsDefined())
                continue;
            if (&e == &entries.front() && firstOnDashLine) {
                m_problem = QStringLiteral("%1: cannot remove the first key of an item").arg(path);
                return;
            }
            edits.push_back({lineStart(e.keyStart), nextLine(entryEnd(e)), {}});
        }
        QString previous; // the last wanted key that the text has, for insertions
        for (auto it = want.begin(); it != want.end(); ++it) {
            const QString key = qs(it->first.Scalar());
            const YAML::Node baseValue = base[key.toStdString()];
            const auto e = find(key);
            if (e != entries.end()) {
                patchValue(e->value, baseValue, it->second, slotOf(*e), edits);
                previous = key;
                continue;
            }
            // Not in the text: an implicit default. It stays implicit while it is unchanged.
            if (baseValue.IsDefined() && equalNodes(baseValue, it->second))
                continue;
            if (!it->second.IsDefined() || it->second.IsNull())
                continue;
            const QByteArray line =
                spaces(column) + key.toUtf8() + ':' + valueAfterKey(it->second, column) + '\n';
            qsizetype at = 0;
            if (!previous.isEmpty()) {
                at = nextLine(entryEnd(*find(previous)));
            } else if (firstOnDashLine) {
                // Nothing can go before an item's first key: after it, then.
                at = nextLine(entryEnd(entries.front()));
            } else {
                at = lineStart(entries.front().keyStart);
            }
            edits.push_back({at, at, line});
        }
    }

    struct Item
    {
        qsizetype chunkStart = 0; // the line after the previous item (comments above it)
        qsizetype chunkEnd = 0;   // past its last line's '\n'
        Slot slot;
        YAML::Node value;
    };

    std::vector<Item> itemsOf(const YAML::Node &seq, const Slot &owner) const
    {
        std::vector<Item> items;
        qsizetype previousEnd = -1;
        for (std::size_t i = 0; i < seq.size(); ++i) {
            const YAML::Node v = seq[i];
            // The item's dash: the last '-' before its value on the value's line (`- -c`).
            const qsizetype valueStart = offset(v.Mark());
            const qsizetype ls = lineStart(valueStart);
            qsizetype dash = valueStart - 1;
            while (dash > ls && m_text.at(dash) != '-')
                --dash;
            if (dash < ls || m_text.at(dash) != '-')
                return {}; // not the `- item` this patcher knows: the caller replaces the list
            Item item;
            const QString index = QStringLiteral("[%1]").arg(i);
            item.slot = Slot{afterAnchor(dash + 1), int(dash - ls),         true,
                             owner.path + index,    owner.wantPath + index, owner.depth + 1};
            item.value = v;
            item.chunkStart = previousEnd < 0 ? ls : previousEnd;
            item.chunkEnd = nextLine(span(item.slot, v).second);
            previousEnd = item.chunkEnd;
            items.push_back(item);
        }
        return items;
    }

    // Pairs each wanted item with an item of the text: the same value first, then the same
    // `name` (a role that was edited), then what is left in order when nothing was added or
    // removed. -1: a new item.
    static std::vector<int> pairItems(const YAML::Node &base, const YAML::Node &want)
    {
        std::vector<int> pair(want.size(), -1);
        std::vector<bool> used(base.size(), false);
        auto claim = [&](auto matches) {
            for (std::size_t w = 0; w < want.size(); ++w) {
                if (pair[w] >= 0)
                    continue;
                for (std::size_t b = 0; b < base.size(); ++b) {
                    if (!used[b] && matches(base[b], want[w])) {
                        pair[w] = int(b);
                        used[b] = true;
                        break;
                    }
                }
            }
        };
        claim([](const YAML::Node &b, const YAML::Node &w) { return equalNodes(b, w); });
        claim([](const YAML::Node &b, const YAML::Node &w) {
            return b.IsMap() && w.IsMap() && b["name"].IsScalar() && w["name"].IsScalar() &&
                   b["name"].Scalar() == w["name"].Scalar();
        });
        if (base.size() == want.size())
            claim([](const YAML::Node &, const YAML::Node &) { return true; });
        return pair;
    }

    void patchBlockSequence(const YAML::Node &doc, const YAML::Node &base, const YAML::Node &want,
                            const Slot &slot, std::vector<Edit> &edits)
    {
        const std::vector<Item> items = itemsOf(doc, slot);
        if (items.empty() || items.size() != base.size()) {
            replaceWhole(slot, doc, want, edits);
            return;
        }
        const std::vector<int> pair = pairItems(base, want);
        for (const Item &item : items)
            m_wantPathOf.insert(item.slot.path, QString()); // removed, unless paired below
        for (std::size_t w = 0; w < pair.size(); ++w) {
            if (pair[w] >= 0)
                m_wantPathOf.insert(items.at(pair[w]).slot.path,
                                    slot.wantPath + QStringLiteral("[%1]").arg(w));
        }
        const int dashColumn = items.front().slot.ownerColumn;
        auto newItem = [&](std::size_t w) -> QByteArray {
            return spaces(dashColumn) + "- " + valueAfterDash(want[w], dashColumn) + '\n';
        };
        bool inOrder = true;
        for (std::size_t w = 0, last = 0; w < pair.size(); ++w) {
            if (pair[w] < 0)
                continue;
            inOrder = inOrder && std::size_t(pair[w]) >= last;
            last = std::size_t(pair[w]);
        }
        if (inOrder) {
            std::vector<bool> kept(items.size(), false);
            qsizetype insertAt = items.front().chunkStart;
            for (std::size_t w = 0; w < pair.size(); ++w) {
                if (pair[w] < 0) {
                    edits.push_back({insertAt, insertAt, newItem(w)});
                    continue;
                }
                const Item &item = items.at(pair[w]);
                kept[pair[w]] = true;
                Slot itemSlot = item.slot;
                itemSlot.wantPath = slot.wantPath + QStringLiteral("[%1]").arg(w);
                patchValue(item.value, base[pair[w]], want[w], itemSlot, edits);
                insertAt = item.chunkEnd;
            }
            for (std::size_t i = 0; i < items.size(); ++i) {
                if (!kept[i])
                    edits.push_back({items[i].chunkStart, items[i].chunkEnd, {}});
            }
            return;
        }
        // Reordered: the items' text (with their own patches) is laid out again in the new order.
        // An alias moved before its anchor has nothing to refer to there: it becomes a value.
        std::vector<std::size_t> placedAt(items.size(), pair.size());
        for (std::size_t w = 0; w < pair.size(); ++w) {
            if (pair[w] >= 0)
                placedAt[pair[w]] = w;
        }
        auto itemOf = [&](const QString &path) -> std::optional<std::size_t> {
            for (std::size_t i = 0; i < items.size(); ++i) {
                const QString &p = items[i].slot.path;
                if (path.startsWith(p) && (path.size() == p.size() || path.at(p.size()) == u'.' ||
                                           path.at(p.size()) == u'['))
                    return i;
            }
            return std::nullopt;
        };
        for (auto it = m_aliasOf.cbegin(); it != m_aliasOf.cend(); ++it) {
            const auto aliasItem = itemOf(it.key()), anchorItem = itemOf(it.value());
            if (aliasItem && anchorItem && placedAt[*aliasItem] < placedAt[*anchorItem])
                m_aliasesBeforeAnchor.insert(it.key());
        }
        QByteArray text;
        for (std::size_t w = 0; w < pair.size(); ++w) {
            if (pair[w] < 0) {
                text += newItem(w);
                continue;
            }
            const Item &item = items.at(pair[w]);
            std::vector<Edit> inner;
            Slot itemSlot = item.slot;
            itemSlot.wantPath = slot.wantPath + QStringLiteral("[%1]").arg(w);
            patchValue(item.value, base[pair[w]], want[w], itemSlot, inner);
            const QByteArray chunk = m_text.mid(item.chunkStart, item.chunkEnd - item.chunkStart);
            auto applied = apply(chunk, item.chunkStart, inner);
            if (!applied) {
                m_problem = applied.error().message;
                return;
            }
            text += *applied;
            if (!text.endsWith('\n'))
                text += '\n';
        }
        edits.push_back({items.front().chunkStart, items.back().chunkEnd, text});
    }

    void patchFlowSequence(const YAML::Node &doc, const YAML::Node &base, const YAML::Node &want,
                           qsizetype start, qsizetype end, std::vector<Edit> &edits)
    {
        // Unchanged items keep their spelling (`"8080"` stays quoted).
        const std::vector<int> pair = pairItems(base, want);
        QList<QByteArray> texts;
        for (std::size_t w = 0; w < want.size(); ++w) {
            if (pair[w] >= 0 && std::size_t(pair[w]) < doc.size() &&
                equalNodes(base[pair[w]], want[w])) {
                const qsizetype itemStart = offset(doc[pair[w]].Mark());
                texts.append(m_text.mid(itemStart, flowItemEnd(itemStart) - itemStart));
            } else {
                texts.append(flowText(want[w]));
            }
        }
        edits.push_back({start, end, "[" + texts.join(", ") + "]"});
    }

    void patchFlowMap(const YAML::Node &doc, const YAML::Node &base, const YAML::Node &want,
                      qsizetype start, qsizetype end, std::vector<Edit> &edits)
    {
        // Unchanged entries keep their spelling (`A: "1"` stays quoted).
        QList<QByteArray> texts;
        const std::vector<Entry> entries = entriesOf(doc);
        for (auto it = want.begin(); it != want.end(); ++it) {
            const std::string key = it->first.Scalar();
            const auto e = std::find_if(entries.begin(), entries.end(),
                                        [&](const Entry &e) { return e.key == qs(key); });
            if (e != entries.end() && equalNodes(base[key], it->second)) {
                texts.append(
                    m_text.mid(e->keyStart, flowItemEnd(skipSpaces(e->colonEnd)) - e->keyStart));
            } else {
                texts.append(QByteArray::fromStdString(key) + ": " + flowText(it->second));
            }
        }
        edits.push_back({start, end, "{" + texts.join(", ") + "}"});
    }

    Result<QByteArray> apply(QByteArray text, qsizetype origin, std::vector<Edit> edits) const
    {
        // Insertions at a removal's start go first; insertions at one place keep their order.
        std::stable_sort(edits.begin(), edits.end(), [](const Edit &a, const Edit &b) {
            return a.start != b.start ? a.start < b.start : a.end < b.end;
        });
        for (std::size_t i = 1; i < edits.size(); ++i) {
            if (edits[i].start < edits[i - 1].end)
                return fail(Error::Kind::Invalid, QString(),
                            QStringLiteral("two changes overlap at byte %1").arg(edits[i].start));
        }
        for (auto it = edits.rbegin(); it != edits.rend(); ++it)
            text.replace(it->start - origin, it->end - it->start, it->text);
        return text;
    }

    const QByteArray &m_text;
    const int m_maxDepth;
    std::vector<qsizetype> m_lineStarts;
    std::vector<std::pair<YAML::Node, QString>> m_visited;
    QHash<QString, QString> m_aliasOf;    // alias path -> anchored path, both in the text
    QHash<QString, QString> m_wantPathOf; // item path in the text -> in the edited template
    QSet<QString> m_aliasesBeforeAnchor;  // aliases a reorder puts before their anchor
    YAML::Node m_want;
    YAML::Node m_base;
    QString m_problem;
};

// Loads `yaml` as a template; nullopt when it does not load.
std::optional<ClusterTemplate> reload(const QByteArray &yaml, const QString &baseDir)
{
    TemplateLoader loader;
    auto t = loader.loadClusterFromData(yaml, QStringLiteral("template.yaml"), baseDir);
    if (!t)
        return std::nullopt;
    return *t;
}

} // namespace

Result<QByteArray> TemplatePatcher::patch(const QByteArray &original, const ClusterTemplate &loaded,
                                          const ClusterTemplate &edited, const QString &baseDir)
{
    if (loaded == edited)
        return original;
    YAML::Node doc, base, want;
    const QByteArray wantYaml = TemplateWriter::toYaml(edited);
    try {
        doc = YAML::Load(original.toStdString());
        base = YAML::Load(TemplateWriter::toYaml(loaded).toStdString());
        want = YAML::Load(wantYaml.toStdString());
    } catch (const YAML::Exception &e) {
        return fail(Error::Kind::Invalid, QString(),
                    QStringLiteral("cannot patch the template: %1").arg(qs(e.msg)));
    }
    if (!doc.IsMap())
        return fail(Error::Kind::Invalid, QString(),
                    QStringLiteral("cannot patch the template: it is not a mapping of fields"));

    // What the result must load as. An edit the loader refuses (a count above max, a TTL that is
    // not a duration) cannot be checked: the finest patch is kept, the diagnostics will say why.
    const std::optional<ClusterTemplate> expected = reload(wantYaml, baseDir);
    Error last = Error::make(Error::Kind::Invalid, QString(), QString());
    // Finest first: field by field, then whole roles (depth 2: roles[i]), then whole top-level
    // fields.
    for (const int maxDepth : {std::numeric_limits<int>::max(), 2, 1}) {
        Patch patch(original, maxDepth);
        Result<QByteArray> patched;
        try {
            patched = patch.run(doc, base, want);
        } catch (const YAML::Exception &e) {
            patched = fail(Error::Kind::Invalid, QString(), qs(e.msg));
        }
        if (!patched) {
            last = patched.error();
            qCDebug(lcTemplate) << "patch at depth" << maxDepth << "failed:" << last.message;
            continue;
        }
        if (!expected || reload(*patched, baseDir) == expected)
            return patched;
        last.message = QStringLiteral("the patched text does not load as the edited template");
        // Not the text itself: env values may be anything.
        qCDebug(lcTemplate) << "patch at depth" << maxDepth
                            << "does not load back as edited; trying coarser nodes";
    }
    return fail(last.kind, last.where,
                QStringLiteral("cannot patch the template: %1").arg(last.message));
}

} // namespace ClusterDeck
