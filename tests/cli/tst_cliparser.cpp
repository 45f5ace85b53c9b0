// clusterdeckctl's one parser (app/cli/args.h), its command table (help, completion) and the
// launch values it reads through core (plan/launchvalues.h): in-process, then through the binary.

#include "args.h"
#include "commandspec.h"
#include "completecommand.h"
#include "gui/sessionfixtures.h"
#include "plan/launchoptions.h"
#include "plan/launchvalues.h"
#include "store/sqlitestore.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

using namespace ClusterDeck;
using namespace ClusterDeck::Cli;

class TestCliParser : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roleCount_data();
    void roleCount();
    void roleCounts_data();
    void roleCounts();
    void envAndMount_data();
    void envAndMount();
    void parse_data();
    void parse();
    void everySpecParsesItsOwnOptions_data();
    void everySpecParsesItsOwnOptions();
    void markdownReference();
    void completion_data();
    void completion();
    void binaryHelp_data();
    void binaryHelp();
    void binaryMarkdownReference();
    void binaryUsageErrors_data();
    void binaryUsageErrors();
    void binaryCompletesFromTheStore_data();
    void binaryCompletesFromTheStore();

private:
    struct Run
    {
        int exitCode = -1;
        QString out;
        QString err;
    };
    static Run ctl(const QStringList &args);
};

TestCliParser::Run TestCliParser::ctl(const QStringList &args)
{
    QProcess p;
    p.start(QStringLiteral(CLUSTERDECKCTL), args);
    Run r;
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

void TestCliParser::roleCount_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("role"); // empty: an error
    QTest::addColumn<int>("count");
    QTest::addColumn<QString>("error");
    QTest::newRow("worker=12") << "worker=12"
                               << "worker" << 12 << QString();
    QTest::newRow("zero") << "ps=0"
                          << "ps" << 0 << QString();
    QTest::newRow("dash in role") << "param-server=3"
                                  << "param-server" << 3 << QString();
    QTest::newRow("no =") << "worker" << QString() << 0 << "'worker' is not ROLE=N (e.g. worker=6)";
    QTest::newRow("no role") << "=3" << QString() << 0 << "'=3' is not ROLE=N (e.g. worker=6)";
    QTest::newRow("no count") << "worker=" << QString() << 0
                              << "'worker=' is not ROLE=N (e.g. worker=6)";
    QTest::newRow("negative") << "worker=-1" << QString() << 0
                              << "'worker=-1' is not ROLE=N (e.g. worker=6)";
    QTest::newRow("not a number") << "worker=many" << QString() << 0
                                  << "'worker=many' is not ROLE=N (e.g. worker=6)";
    QTest::newRow("upper case role") << "Worker=2" << QString() << 0
                                     << "'Worker=2' is not ROLE=N: role name 'Worker' must match "
                                        "[a-z][a-z0-9-]{0,30}";
    QTest::newRow("role ends in a digit") << "worker2=1" << QString() << 0
                                          << "'worker2=1' is not ROLE=N: role name 'worker2' "
                                             "must not end in a digit";
}

void TestCliParser::roleCount()
{
    QFETCH(QString, text);
    QFETCH(QString, role);
    QFETCH(int, count);
    QFETCH(QString, error);
    const auto rc = LaunchValues::parseRoleCount(text);
    QCOMPARE(rc.has_value(), !role.isEmpty());
    if (rc) {
        QCOMPARE(rc->first, role);
        QCOMPARE(rc->second, count);
    } else {
        QCOMPARE(rc.error().toString(), error);
        QCOMPARE(rc.error().kind, Error::Kind::Invalid);
    }
}

void TestCliParser::roleCounts_data()
{
    QTest::addColumn<QStringList>("words");
    QTest::addColumn<QString>("expected"); // "role:n,…" or "error: …"
    QTest::newRow("two roles") << QStringList{"master=1", "worker=6"} << "master:1,worker:6";
    QTest::newRow("none") << QStringList{} << "";
    QTest::newRow("twice") << QStringList{"worker=1", "worker=2"}
                           << "error: role worker is given twice";
    QTest::newRow("one bad") << QStringList{"worker=1", "ps"}
                             << "error: 'ps' is not ROLE=N (e.g. worker=6)";
}

void TestCliParser::roleCounts()
{
    QFETCH(QStringList, words);
    QFETCH(QString, expected);
    const auto counts = LaunchValues::parseRoleCounts(words);
    if (!counts) {
        QCOMPARE(QStringLiteral("error: ") + counts.error().toString(), expected);
        return;
    }
    QStringList got;
    for (auto it = counts->cbegin(); it != counts->cend(); ++it)
        got.append(it.key() + u':' + QString::number(it.value()));
    QCOMPARE(got.join(u','), expected);
}

void TestCliParser::envAndMount_data()
{
    QTest::addColumn<QStringList>("counts");
    QTest::addColumn<QStringList>("env");
    QTest::addColumn<QStringList>("mounts");
    QTest::addColumn<QString>("error"); // empty: applies
    QTest::newRow("all good") << QStringList{"worker=3"} << QStringList{"A=1", "B=x=y", "C="}
                              << QStringList{"/data:/data:ro", "cache:/cache"} << QString();
    QTest::newRow("bad count") << QStringList{"worker"} << QStringList{} << QStringList{}
                               << "--count: 'worker' is not ROLE=N (e.g. worker=6)";
    QTest::newRow("bad env name") << QStringList{} << QStringList{"1A=x"} << QStringList{}
                                  << "--env: '1A=x' is not K=V (K: letters, digits and _, not "
                                     "starting with a digit)";
    QTest::newRow("env without =") << QStringList{} << QStringList{"A"} << QStringList{}
                                   << "--env: 'A' is not K=V (K: letters, digits and _, not "
                                      "starting with a digit)";
    QTest::newRow("bad mount") << QStringList{} << QStringList{} << QStringList{"/data"}
                               << "--mount: '/data': ";
}

void TestCliParser::envAndMount()
{
    QFETCH(QStringList, counts);
    QFETCH(QStringList, env);
    QFETCH(QStringList, mounts);
    QFETCH(QString, error);
    LaunchOptions options;
    const auto applied = LaunchValues::apply(options, counts, env, mounts);
    QCOMPARE(applied.has_value(), error.isEmpty());
    if (!applied) {
        QVERIFY2(applied.error().toString().startsWith(error),
                 qPrintable(applied.error().toString()));
        return;
    }
    QCOMPARE(options.counts.value(QStringLiteral("worker")), 3);
    QCOMPARE(options.env.value(QStringLiteral("B")), QStringLiteral("x=y"));
    QCOMPARE(options.env.value(QStringLiteral("C")), QString());
    QCOMPARE(options.mounts.size(), 2);
    QCOMPARE(options.mounts[0].target, QStringLiteral("/data"));
    QVERIFY(options.mounts[0].readOnly);
    QCOMPARE(options.mounts[1].type, Mount::Type::Volume);
}

void TestCliParser::parse_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QStringList>("positional");
    QTest::addColumn<QString>("values"); // "--k=v;…" in the order given
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<bool>("help");
    QTest::addColumn<QString>("error");
    QTest::newRow("launch, both spellings")
        << "launch" << QStringList{"t.yaml", "--name", "x", "--count=worker=3", "--count", "ps=1"}
        << QStringList{"t.yaml"} << "--count=worker=3;--count=ps=1;--name=x" << QStringList{}
        << false << QString();
    QTest::newRow("flags") << "launch" << QStringList{"--json", "t.yaml", "--no-wait"}
                           << QStringList{"t.yaml"} << "" << QStringList{"--json", "--no-wait"}
                           << false << QString();
    QTest::newRow("unknown option")
        << "launch" << QStringList{"t.yaml", "--bogus"} << QStringList{"t.yaml"} << ""
        << QStringList{} << false << "unknown option '--bogus'";
    QTest::newRow("flag with a value") << "ls" << QStringList{"--json=yes"} << QStringList{} << ""
                                       << QStringList{} << false << "unknown option '--json'";
    QTest::newRow("missing value") << "rm" << QStringList{"s", "--kernel"} << QStringList{"s"} << ""
                                   << QStringList{} << false << "--kernel needs a value";
    QTest::newRow("given twice") << "launch" << QStringList{"t", "--name", "a", "--name", "b"}
                                 << QStringList{"t"} << "--name=a;--name=b" << QStringList{}
                                 << false << "--name given more than once";
    QTest::newRow("help anywhere")
        << "launch" << QStringList{"t.yaml", "--bogus", "-h"} << QStringList{"t.yaml"} << ""
        << QStringList{} << true << "unknown option '--bogus'";
    QTest::newRow("after -- all positional")
        << "exec" << QStringList{"s", "--all", "--", "ls", "-la", "--help"}
        << QStringList{"s", "ls", "-la", "--help"} << "" << QStringList{"--all"} << false
        << QString();
    QTest::newRow("short alias -f") << "logs" << QStringList{"s", "-f"} << QStringList{"s"} << ""
                                    << QStringList{"--follow"} << false << QString();
    QTest::newRow("short alias -u")
        << "registry login" << QStringList{"reg:5000", "-u", "bob", "--password-stdin"}
        << QStringList{"reg:5000"} << "--username=bob" << QStringList{"--password-stdin"} << false
        << QString();
    QTest::newRow("- is positional") << "store key import" << QStringList{"-"} << QStringList{"-"}
                                     << "" << QStringList{} << false << QString();
    QTest::newRow("scale words") << "scale" << QStringList{"s", "worker=6", "--settle", "0"}
                                 << QStringList{"s", "worker=6"} << "--settle=0" << QStringList{}
                                 << false << QString();
}

void TestCliParser::parse()
{
    QFETCH(QString, command);
    QFETCH(QStringList, args);
    QFETCH(QStringList, positional);
    QFETCH(QString, values);
    QFETCH(QStringList, flags);
    QFETCH(bool, help);
    QFETCH(QString, error);
    const Args a = Args::parse(args, commandSpec(command));
    QCOMPARE(a.error, error);
    QCOMPARE(a.helpRequested, help);
    QCOMPARE(a.positional, positional);
    QStringList got;
    for (const QString &key : a.values.uniqueKeys()) {
        for (const QString &v : a.all(key))
            got.append(key + u'=' + v);
    }
    QCOMPARE(got.join(u';'), values);
    QStringList gotFlags(a.flags.cbegin(), a.flags.cend());
    gotFlags.sort();
    flags.sort();
    QCOMPARE(gotFlags, flags);
}

void TestCliParser::everySpecParsesItsOwnOptions_data()
{
    QTest::addColumn<QString>("command");
    for (const CommandSpec &s : commandSpecs())
        QTest::newRow(qPrintable(s.name)) << s.name;
}

void TestCliParser::everySpecParsesItsOwnOptions()
{
    QFETCH(QString, command);
    const CommandSpec &spec = commandSpec(command);
    QStringList args;
    for (const OptionSpec &o : spec.options) {
        args.append(o.name);
        if (o.takesValue())
            args.append(o.choices.value(0, QStringLiteral("v")));
    }
    const Args a = Args::parse(args, spec);
    QVERIFY2(a.error.isEmpty(), qPrintable(a.error));
    QVERIFY(a.positional.isEmpty());
    for (const OptionSpec &o : spec.options)
        QVERIFY2(o.takesValue() ? a.values.contains(o.name) : a.has(o.name), qPrintable(o.name));
    // Its help names every option and the usage line.
    const QString help = helpText(spec);
    QVERIFY2(help.startsWith(QStringLiteral("Usage: clusterdeckctl [--store URL] ") + command),
             qPrintable(help));
    for (const OptionSpec &o : spec.options)
        QVERIFY2(help.contains(o.name), qPrintable(o.name));
    QVERIFY(help.contains(QStringLiteral("-h, --help")));
    const QRegularExpression listed(
        QStringLiteral("^  %1( |$)").arg(QRegularExpression::escape(command)),
        QRegularExpression::MultilineOption);
    QCOMPARE(listed.match(overviewText()).hasMatch(), !spec.hidden);
}

// `help --markdown`, the CLI reference of docs/contracts.md: every visible command under its own
// heading with its usage and each option, the hidden ones not at all, nothing that Markdown
// would take for markup in its text.
void TestCliParser::markdownReference()
{
    const QString md = Cli::markdownReference();
    for (const CommandSpec &s : commandSpecs()) {
        const QString heading = QStringLiteral("\n### `%1`\n").arg(s.name);
        QCOMPARE(int(md.count(heading)), s.hidden ? 0 : 1);
        if (s.hidden)
            continue;
        const qsizetype at = md.indexOf(heading);
        const qsizetype next = md.indexOf(QStringLiteral("\n### "), at + 1);
        const QString section = md.mid(at, next < 0 ? -1 : next - at);
        QVERIFY2(section.contains(QStringLiteral("```text\nclusterdeckctl ") + s.name),
                 qPrintable(section));
        for (const OptionSpec &o : s.options)
            QVERIFY2(section.contains(QStringLiteral("| `") + o.name) ||
                         section.contains(QStringLiteral("`, `") + o.name),
                     qPrintable(s.name + QLatin1Char(' ') + o.name));
    }
    for (const OptionSpec &o : globalOptions())
        QVERIFY2(md.contains(o.name), qPrintable(o.name));
    QVERIFY2(!md.contains(QStringLiteral("<store id>")), "an unescaped <…> is an HTML tag");
    QVERIFY(md.contains(QStringLiteral("`--mode single-node\\|multi-node\\|auto`")));
}

void TestCliParser::completion_data()
{
    QTest::addColumn<QStringList>("words"); // the last one is being typed
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("a command") << QStringList{"ho"} << QStringList{"host"};
    QTest::newRow("r…") << QStringList{"re"} << QStringList{"restart", "reconcile", "registry"};
    QTest::newRow("global options") << QStringList{"--s"} << QStringList{"--store"};
    QTest::newRow("after --store")
        << QStringList{"--store", "sqlite:///x", "sc"} << QStringList{"scale"};
    QTest::newRow("a group's subcommands")
        << QStringList{"host", ""}
        << QStringList{"add", "import-contexts", "trust", "ls", "rm", "inspect"};
    QTest::newRow("store key") << QStringList{"store", "key", ""}
                               << QStringList{"export", "import"};
    QTest::newRow("flags not used yet")
        << QStringList{"rm", "alpha", "--"} << QStringList{"--kernel", "--help"};
    QTest::newRow("repeatable stays")
        << QStringList{"template", "render", "t", "--count", "a=1", "--json", "--"}
        << QStringList{"--count", "--env", "--help"};
    QTest::newRow("sessions") << QStringList{"rm", ""} << QStringList{"alpha", "beta"};
    QTest::newRow("session prefix") << QStringList{"show", "b"} << QStringList{"beta"};
    QTest::newRow("kernels of the session")
        << QStringList{"restart", "alpha", "--kernel", "w"} << QStringList{"worker1", "worker2"};
    QTest::newRow("roles for exec")
        << QStringList{"exec", "alpha", "--role", ""} << QStringList{"master", "worker"};
    QTest::newRow("scale ROLE=") << QStringList{"scale", "alpha", ""}
                                 << QStringList{"master=", "worker="};
    QTest::newRow("scale, next ROLE=")
        << QStringList{"scale", "alpha", "worker=3", "m"} << QStringList{"master="};
    QTest::newRow("template file") << QStringList{"launch", ""} << QStringList{":files"};
    QTest::newRow("--count from the template")
        << QStringList{"launch", "mpi.yaml", "--count", ""} << QStringList{"head=", "node="};
    QTest::newRow("--count= form") << QStringList{"template", "render", "mpi.yaml", "--count=n"}
                                   << QStringList{"--count=node="};
    QTest::newRow("choices") << QStringList{"launch", "t.yaml", "--mode", ""}
                             << QStringList{"single-node", "multi-node", "auto"};
    QTest::newRow("--mode= form") << QStringList{"launch", "t.yaml", "--mode=m"}
                                  << QStringList{"--mode=multi-node"};
    QTest::newRow("network's subcommands")
        << QStringList{"network", ""} << QStringList{"setup", "show"};
    QTest::newRow("network drivers")
        << QStringList{"network", "setup", "--driver", ""} << QStringList{"vxlan", "swarm"};
    QTest::newRow("network setup options")
        << QStringList{"network", "setup", "--driver", "vxlan", "--"}
        << QStringList{"--pool", "--vnis", "--vxlan-port", "--json", "--help"};
    QTest::newRow("hosts") << QStringList{"host", "rm", "h"} << QStringList{"h1", "h2"};
    QTest::newRow("host list") << QStringList{"image", "pull", "img", "--hosts", "h1,"}
                               << QStringList{"h1,h1", "h1,h2"};
    QTest::newRow("a command in kernels")
        << QStringList{"exec", "alpha", "--", "l"} << QStringList{};
    QTest::newRow("free text") << QStringList{"launch", "t.yaml", "--name", ""} << QStringList{};
    QTest::newRow("help COMMAND") << QStringList{"help", "lau"} << QStringList{"launch"};
    QTest::newRow("hidden stays hidden") << QStringList{"__"} << QStringList{};
}

void TestCliParser::completion()
{
    QFETCH(QStringList, words);
    QFETCH(QStringList, expected);
    CompletionNames names;
    names.sessions = [] {
        return QStringList{"alpha", "beta"};
    };
    names.hosts = [] {
        return QStringList{"h1", "h2"};
    };
    names.kernels = [](const QString &s) {
        return s == QLatin1String("alpha") ? QStringList{"master1", "worker1", "worker2"}
                                           : QStringList{};
    };
    names.roles = [](const QString &s) {
        return s == QLatin1String("alpha") ? QStringList{"master", "worker"} : QStringList{};
    };
    names.templateRoles = [](const QString &file) {
        return file == QLatin1String("mpi.yaml") ? QStringList{"head", "node"} : QStringList{};
    };
    QCOMPARE(completions(words, names), expected);
}

void TestCliParser::binaryHelp_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("start");
    QTest::newRow("--help") << QStringList{"--help"}
                            << "Usage: clusterdeckctl [--store URL] COMMAND [ARGS...]";
    QTest::newRow("launch --help")
        << QStringList{"launch", "--help"} << "Usage: clusterdeckctl [--store URL] launch FILE";
    QTest::newRow("help launch") << QStringList{"help", "launch"}
                                 << "Usage: clusterdeckctl [--store URL] launch FILE";
    QTest::newRow("host add -h") << QStringList{"host", "add", "-h"}
                                 << "Usage: clusterdeckctl [--store URL] host add NAME";
    QTest::newRow("host --help") << QStringList{"host", "--help"}
                                 << "Usage: clusterdeckctl host add NAME";
    QTest::newRow("template render --help") << QStringList{"template", "render", "--help"}
                                            << "Usage: clusterdeckctl [--store URL] template "
                                               "render FILE";
    QTest::newRow("image pull --help") << QStringList{"image", "pull", "--help"}
                                       << "Usage: clusterdeckctl [--store URL] image pull IMAGE";
    QTest::newRow("scale --help") << QStringList{"scale", "--help"}
                                  << "Usage: clusterdeckctl [--store URL] scale SESSION ROLE=N";
    QTest::newRow("store key export --help")
        << QStringList{"store", "key", "export", "--help"}
        << "Usage: clusterdeckctl [--store URL] store key export";
}

void TestCliParser::binaryHelp()
{
    QFETCH(QStringList, args);
    QFETCH(QString, start);
    QTemporaryDir dir;
    // --help never opens (or creates) a store.
    const QString store = dir.filePath(QStringLiteral("never.db"));
    const Run r =
        ctl(QStringList{QStringLiteral("--store"), QStringLiteral("sqlite://") + store} + args);
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.startsWith(start), qPrintable(r.out));
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    QVERIFY(!QFile::exists(store));
}

void TestCliParser::binaryMarkdownReference()
{
    QTemporaryDir dir;
    const QString store = dir.filePath(QStringLiteral("never.db"));
    const Run r = ctl({QStringLiteral("--store"), QStringLiteral("sqlite://") + store,
                       QStringLiteral("help"), QStringLiteral("--markdown")});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, Cli::markdownReference());
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    QVERIFY(!QFile::exists(store));
    // Not a command of its own: the overview does not offer it.
    QVERIFY(!overviewText().contains(QStringLiteral("--markdown")));
}

void TestCliParser::binaryUsageErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("error");
    QTest::newRow("unknown option")
        << QStringList{"launch", "t.yaml", "--bogus"}
        << "error: unknown option '--bogus' (see clusterdeckctl launch --help)\n";
    QTest::newRow("launch --count") << QStringList{"launch", "t.yaml", "--count", "worker"}
                                    << "error: --count: 'worker' is not ROLE=N (e.g. worker=6)\n";
    QTest::newRow("render --count, the same words")
        << QStringList{"template", "render", "t.yaml", "--count", "worker"}
        << "error: --count: 'worker' is not ROLE=N (e.g. worker=6) (see clusterdeckctl --help)\n";
    QTest::newRow("scale ROLE=N") << QStringList{"scale", "s", "worker"}
                                  << "error: 'worker' is not ROLE=N (e.g. worker=6)\n";
    QTest::newRow("host add unknown option")
        << QStringList{"host", "add", "x1", "--docker", "unix:///x.sock", "--bogus"}
        << "error: unknown option '--bogus' (see clusterdeckctl host add --help)\n";
    QTest::newRow("image, unknown sub") << QStringList{"image", "frob"}
                                        << "error: unknown image command 'frob' (see "
                                           "clusterdeckctl image --help)\n";
    QTest::newRow("value missing") << QStringList{"logs", "s", "--tail"}
                                   << "error: --tail needs a value (see clusterdeckctl logs "
                                      "--help)\n";
}

void TestCliParser::binaryUsageErrors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, error);
    QTemporaryDir dir;
    const Run r =
        ctl(QStringList{QStringLiteral("--store"),
                        QStringLiteral("sqlite://") + dir.filePath(QStringLiteral("s.db"))} +
            args);
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err, error);
    QVERIFY(r.out.isEmpty());
}

void TestCliParser::binaryCompletesFromTheStore_data()
{
    QTest::addColumn<QStringList>("words");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("sessions") << QStringList{"rm", ""} << QStringList{"alpha", "beta"};
    QTest::newRow("kernels") << QStringList{"logs", "alpha", "--kernel", "w"}
                             << QStringList{"worker1", "worker2"};
    QTest::newRow("roles by short id")
        << QStringList{"scale", "11111111", ""} << QStringList{"master=", "worker="};
    QTest::newRow("template roles")
        << QStringList{"launch",
                       QString::fromUtf8(qgetenv("CLUSTERDECK_SOURCE_DIR")) +
                           QStringLiteral("/templates/lab-basic.yaml"),
                       "--count", ""}
        << QStringList{"master=", "worker="};
    QTest::newRow("no store: no names")
        << QStringList{"--store", "sqlite:///nonexistent/x.db", "rm", ""} << QStringList{};
}

void TestCliParser::binaryCompletesFromTheStore()
{
    QFETCH(QStringList, words);
    QFETCH(QStringList, expected);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("state.db"));
    {
        auto store = SqliteStore::open(path);
        QVERIFY(store.has_value());
        const auto alpha = Fixtures::makeSession("11111111-aaaa-4000-8000-000000000001", "alpha",
                                                 {{"master", 1}, {"worker", 2}});
        const auto beta =
            Fixtures::makeSession("22222222-bbbb-4000-8000-000000000002", "beta", {{"main", 2}});
        QVERIFY((*store)->createSession(alpha.session, alpha.kernels).has_value());
        QVERIFY((*store)->createSession(beta.session, beta.kernels).has_value());
    }
    const Run r = ctl(QStringList{QStringLiteral("--store"), QStringLiteral("sqlite://") + path,
                                  QStringLiteral("__complete")} +
                      words);
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.isEmpty(), qPrintable(r.err));
    QCOMPARE(r.out.split(u'\n', Qt::SkipEmptyParts), expected);
    QVERIFY(!QFile::exists(QStringLiteral("/nonexistent/x.db")));
}

QTEST_GUILESS_MAIN(TestCliParser)
#include "tst_cliparser.moc"
