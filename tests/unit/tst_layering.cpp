// The layers of docs/architecture.md ("Layers"), held against the code and the build: every
// `#include "folder/…"` of a folder names a folder the graph lets it use (directly or through
// the folders it uses), the graph has no cycle, no folder name exists under two include roots, and
// each core folder's `clusterdeck_core_library(… DEPENDS …)` declares exactly the graph's edges.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QMap>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

namespace {

QString sourceDir()
{
    return qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR");
}

// folder ("core/host", "ui/models", "app/cli") → the folders it may use directly.
using Graph = QMap<QString, QSet<QString>>;

// The include roots: a file in one of these trees writes `#include "<folder>/<file>"`.
const QStringList kRoots{QStringLiteral("core"), QStringLiteral("ui"), QStringLiteral("app")};

// Reads the table under "## Layers": | `folder` | `used`, `used`, … or — |. `core/*` in the
// second column stands for every core folder.
Graph readGraph(const QString &markdown, QString *error)
{
    Graph graph;
    const qsizetype start = markdown.indexOf(QLatin1String("\n## Layers"));
    if (start < 0) {
        *error = QStringLiteral("no \"## Layers\" section");
        return {};
    }
    const qsizetype end = markdown.indexOf(QLatin1String("\n## "), start + 1);
    const QString section = markdown.mid(start, end < 0 ? -1 : end - start);
    static const QRegularExpression row(QStringLiteral(R"re(^\| `([a-z]+/[a-z]+)` \|([^|]*)\|)re"),
                                        QRegularExpression::MultilineOption);
    static const QRegularExpression name(QStringLiteral(R"re(`([a-z]+/[a-z*]+)`)re"));
    QList<std::pair<QString, QString>> wildcards; // folder, prefix of the folders it may use
    for (auto m = row.globalMatch(section); m.hasNext();) {
        const auto match = m.next();
        QSet<QString> &uses = graph[match.captured(1)];
        for (auto n = name.globalMatch(match.captured(2)); n.hasNext();) {
            const QString used = n.next().captured(1);
            if (used.endsWith(u'*'))
                wildcards.append({match.captured(1), used.chopped(1)});
            else
                uses.insert(used);
        }
    }
    const QStringList folders = graph.keys();
    for (const auto &[folder, prefix] : std::as_const(wildcards)) {
        for (const QString &other : folders) {
            if (other.startsWith(prefix) && other != folder)
                graph[folder].insert(other);
        }
    }
    if (graph.isEmpty())
        *error = QStringLiteral("no rows in the \"## Layers\" table");
    return graph;
}

QSet<QString> closure(const Graph &graph, const QString &folder)
{
    QSet<QString> seen;
    QStringList todo(graph.value(folder).cbegin(), graph.value(folder).cend());
    while (!todo.isEmpty()) {
        const QString next = todo.takeLast();
        if (seen.contains(next))
            continue;
        seen.insert(next);
        for (const QString &n : graph.value(next))
            todo.append(n);
    }
    return seen;
}

// One include that breaks the graph, as "file:line: message".
QStringList violations(const Graph &graph, const QString &folder, const QString &file,
                       const QString &text)
{
    QStringList out;
    const QSet<QString> allowed = closure(graph, folder);
    static const QRegularExpression include(QStringLiteral(R"re(^\s*#\s*include\s*"([^"]+)")re"),
                                            QRegularExpression::MultilineOption);
    for (auto m = include.globalMatch(text); m.hasNext();) {
        const auto match = m.next();
        const QString path = match.captured(1);
        const int line = int(text.left(match.capturedStart()).count(u'\n')) + 1;
        if (!path.contains(u'/'))
            continue; // the folder's own header
        const QString first = path.section(u'/', 0, 0);
        if (first == u".." || kRoots.contains(first)) {
            out.append(
                QStringLiteral("%1:%2: #include \"%3\": write includes as \"<folder>/<file>\"")
                    .arg(file)
                    .arg(line)
                    .arg(path));
            continue;
        }
        QString target;
        for (const QString &root : kRoots) {
            if (graph.contains(root + u'/' + first))
                target = root + u'/' + first;
        }
        if (target.isEmpty()) {
            out.append(QStringLiteral("%1:%2: #include \"%3\": %4 is not a folder of the graph")
                           .arg(file)
                           .arg(line)
                           .arg(path, first));
        } else if (target != folder && !allowed.contains(target)) {
            QStringList may(allowed.cbegin(), allowed.cend());
            may.sort();
            out.append(QStringLiteral("%1:%2: #include \"%3\": %4 may not use %5 (it may use: %6)")
                           .arg(file)
                           .arg(line)
                           .arg(path, folder, target,
                                may.isEmpty() ? QStringLiteral("nothing") : may.join(u", ")));
        }
    }
    return out;
}

// A cycle of the graph as "a → b → a", or empty.
QString cycleOf(const Graph &graph)
{
    QMap<QString, int> state; // 1 on the path, 2 done
    QStringList path;
    std::function<QString(const QString &)> visit = [&](const QString &n) -> QString {
        state[n] = 1;
        path.append(n);
        for (const QString &m : graph.value(n)) {
            if (state.value(m) == 1)
                return (path.mid(path.indexOf(m)) << m).join(QStringLiteral(" → "));
            if (state.value(m) == 0) {
                if (QString c = visit(m); !c.isEmpty())
                    return c;
            }
        }
        path.removeLast();
        state[n] = 2;
        return {};
    };
    for (auto it = graph.cbegin(); it != graph.cend(); ++it) {
        if (state.value(it.key()) == 0) {
            if (QString c = visit(it.key()); !c.isEmpty())
                return c;
        }
    }
    return {};
}

QString readFile(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

} // namespace

class TestLayering : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void graphHasNoCycle();
    void everyFolderIsInTheGraph();
    void includesFollowTheGraph_data();
    void includesFollowTheGraph();
    void coreTargetsDeclareTheGraph_data();
    void coreTargetsDeclareTheGraph();
    void checkFindsABrokenLayer_data();
    void checkFindsABrokenLayer();

private:
    Graph m_graph;
};

void TestLayering::initTestCase()
{
    QVERIFY2(!sourceDir().isEmpty(), "CLUSTERDECK_SOURCE_DIR must name the source tree");
    const QString doc = readFile(sourceDir() + QStringLiteral("/docs/architecture.md"));
    QVERIFY2(!doc.isEmpty(), "cannot read docs/architecture.md");
    QString error;
    m_graph = readGraph(doc, &error);
    QVERIFY2(error.isEmpty(), qPrintable(QStringLiteral("docs/architecture.md: ") + error));
    for (auto it = m_graph.cbegin(); it != m_graph.cend(); ++it) {
        for (const QString &used : it.value())
            QVERIFY2(
                m_graph.contains(used),
                qPrintable(QStringLiteral("%1 uses %2, which has no row").arg(it.key(), used)));
    }
}

void TestLayering::graphHasNoCycle()
{
    const QString cycle = cycleOf(m_graph);
    QVERIFY2(cycle.isEmpty(), qPrintable(QStringLiteral("cycle: ") + cycle));
}

void TestLayering::everyFolderIsInTheGraph()
{
    // A new folder gets a row (and a place) before it gets code; a folder name lives under one
    // include root only, or "stats/x.h" would mean two things.
    QMap<QString, QString> rootOf;
    for (const QString &root : kRoots) {
        const QDir dir(sourceDir() + u'/' + root);
        for (const QString &name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            const QString folder = root + u'/' + name;
            if (!QDir(dir.filePath(name))
                     .entryList({QStringLiteral("*.h"), QStringLiteral("*.cpp")})
                     .isEmpty())
                QVERIFY2(
                    m_graph.contains(folder),
                    qPrintable(folder + QStringLiteral(" has no row in docs/architecture.md")));
            QVERIFY2(!rootOf.contains(name), qPrintable(QStringLiteral("%1 and %2/%3 share a name")
                                                            .arg(rootOf.value(name), root, name)));
            rootOf.insert(name, folder);
        }
    }
}

void TestLayering::includesFollowTheGraph_data()
{
    QTest::addColumn<QString>("folder");
    for (auto it = m_graph.cbegin(); it != m_graph.cend(); ++it)
        QTest::newRow(qPrintable(it.key())) << it.key();
}

void TestLayering::includesFollowTheGraph()
{
    QFETCH(QString, folder);
    QStringList found;
    QDirIterator files(sourceDir() + u'/' + folder,
                       {QStringLiteral("*.h"), QStringLiteral("*.cpp")}, QDir::Files);
    int count = 0;
    while (files.hasNext()) {
        const QString path = files.next();
        ++count;
        found +=
            violations(m_graph, folder, QDir(sourceDir()).relativeFilePath(path), readFile(path));
    }
    QVERIFY2(count > 0, qPrintable(folder + QStringLiteral(" has no sources")));
    QVERIFY2(found.isEmpty(), qPrintable(u'\n' + found.join(u'\n')));
}

void TestLayering::coreTargetsDeclareTheGraph_data()
{
    QTest::addColumn<QString>("folder");
    for (auto it = m_graph.cbegin(); it != m_graph.cend(); ++it) {
        if (it.key().startsWith(QLatin1String("core/")))
            QTest::newRow(qPrintable(it.key())) << it.key();
    }
}

void TestLayering::coreTargetsDeclareTheGraph()
{
    QFETCH(QString, folder);
    const QString cmake = readFile(sourceDir() + u'/' + folder + QStringLiteral("/CMakeLists.txt"));
    const QString name = folder.section(u'/', 1);
    static const QRegularExpression call(QStringLiteral(
        R"re(clusterdeck_core_library\(\s*([a-z]+)((?:\s+DEPENDS)((?:\s+[a-z]+)*))?)re"));
    const auto match = call.match(cmake);
    QVERIFY2(match.hasMatch() && match.captured(1) == name,
             qPrintable(folder + QStringLiteral("/CMakeLists.txt: no clusterdeck_core_library(") +
                        name + u')'));
    QSet<QString> declared;
    for (const QString &dep :
         match.captured(3).split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts))
        declared.insert(QStringLiteral("core/") + dep);
    QStringList want(m_graph.value(folder).cbegin(), m_graph.value(folder).cend()),
        have(declared.cbegin(), declared.cend());
    want.sort();
    have.sort();
    QVERIFY2(have == want,
             qPrintable(QStringLiteral("%1/CMakeLists.txt DEPENDS %2; docs/architecture.md says %3")
                            .arg(folder, have.join(u' '), want.join(u' '))));
}

void TestLayering::checkFindsABrokenLayer_data()
{
    // The check itself, on made-up files: it must be able to fail.
    QTest::addColumn<QString>("folder");
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("expected");
    QTest::newRow("own header") << "core/host"
                                << "#include \"hostregistry.h\"\n"
                                << 0;
    QTest::newRow("lower folder") << "core/host"
                                  << "#include \"docker/dockerclient.h\"\n"
                                  << 0;
    QTest::newRow("lower through another") << "core/host"
                                           << "#include \"http/httptypes.h\"\n"
                                           << 0;
    QTest::newRow("upward") << "core/common"
                            << "#include \"error.h\"\n#include \"control/controller.h\"\n"
                            << 1;
    QTest::newRow("sideways") << "core/stats"
                              << "#include \"store/records.h\"\n"
                              << 1;
    QTest::newRow("core to ui") << "core/control"
                                << "#include \"sessions/sessionsview.h\"\n"
                                << 1;
    QTest::newRow("unknown folder") << "core/plan"
                                    << "#include \"nowhere/x.h\"\n"
                                    << 1;
    QTest::newRow("path by root") << "ui/console"
                                  << "#include \"core/store/records.h\"\n"
                                  << 1;
    QTest::newRow("system headers are not ours") << "core/common"
                                                 << "#include <QString>\n#include <curl/curl.h>\n"
                                                 << 0;
}

void TestLayering::checkFindsABrokenLayer()
{
    QFETCH(QString, folder);
    QFETCH(QString, text);
    QFETCH(int, expected);
    const QStringList found = violations(m_graph, folder, QStringLiteral("made-up.cpp"), text);
    QVERIFY2(found.size() == expected, qPrintable(found.join(u'\n')));
    if (expected)
        QVERIFY2(found.first().startsWith(QLatin1String("made-up.cpp:")),
                 qPrintable(found.first()));
}

QTEST_GUILESS_MAIN(TestLayering)
#include "tst_layering.moc"
