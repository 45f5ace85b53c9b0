// Keyboard and screen-reader access to every window and dialog of the console that can be built
// without a Docker daemon (issue 29, item 3). Walks each one's widget tree and fails, naming the
// widget and its parents, on
//   (a) a visible label whose text marks a mnemonic ("TLS &CA:") but has no buddy: it shows the
//       "&" itself and the keyboard gets nothing;
//   (b) a visible, enabled control that takes focus but has no accessible name: what
//       QAccessible::queryAccessibleInterface() says (its Name, or the label it is labelled by),
//       since that is what a screen reader gets. A name needs a letter or a digit ("…", "+" is
//       not one), and the value of a combo box is not its name: on Linux Qt 6.4 answers a
//       combo's Name with its current text and relies on the label relation, so a combo needs a
//       buddy label, or else its own accessibleName (what Qt passes on elsewhere);
//   (c) controls of one window with the same name and role and no description to tell them
//       apart;
//   (d) a focus chain that does not visit every visible focusable control and come back.

#include "console/consolecontroller.h"
#include "gui/sessionfixtures.h"
#include "hosts/addhostdialog.h"
#include "hosts/networksetupdialog.h"
#include "launch/launchdialog.h"
#include "mainwindow/mainwindow.h"
#include "sessions/runcommanddialog.h"
#include "sessions/scaleroledialog.h"
#include "store/sqlitestore.h"
#include "template/templateloader.h"
#include "templates/exportdialog.h"
#include "templates/templateeditor.h"
#include "terminal/terminaltabs.h"
#include "widgets/detachedwindow.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QAccessible>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <functional>
#include <memory>

using namespace ClusterDeck;
using namespace ClusterDeck::Fixtures;
using namespace ClusterDeck::Ui;

namespace {

// What a row's window is built from: a controller on a temporary SQLite store that holds one
// session ("alpha": 1 master, 2 workers) or none.
struct Env
{
    ConsoleController *controller = nullptr;
    SessionFixture alpha;
    QString userTemplates; // an empty folder
};

using Factory = std::function<QWidget *(Env &)>;

QString sampleTemplates()
{
    return qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") + QStringLiteral("/templates");
}

QString sampleTemplate(const QString &name)
{
    return sampleTemplates() + u'/' + name;
}

TemplateEditor *templateEditor(const Env &env, const QString &file)
{
    auto *editor = new TemplateEditor;
    editor->setDirectories({sampleTemplates()}, env.userTemplates);
    editor->openFile(sampleTemplate(file));
    return editor;
}

QTabWidget *tabsWithPage(QWidget *in, const QString &title)
{
    for (QTabWidget *tabs : in->findChildren<QTabWidget *>())
        for (int i = 0; i < tabs->count(); ++i)
            if (tabs->tabText(i) == title)
                return tabs;
    return nullptr;
}

QString describe(const QWidget *w)
{
    QString text = QString::fromLatin1(w->metaObject()->className());
    if (!w->objectName().isEmpty())
        text += QStringLiteral(" \"%1\"").arg(w->objectName());
    // Something a reader of the failure recognises on screen.
    QString hint;
    if (const auto *label = qobject_cast<const QLabel *>(w))
        hint = label->text();
    else if (const auto *button = qobject_cast<const QAbstractButton *>(w))
        hint = button->text();
    else if (!w->toolTip().isEmpty())
        hint = w->toolTip();
    else if (const auto *edit = qobject_cast<const QLineEdit *>(w))
        hint = edit->placeholderText();
    if (!hint.isEmpty())
        text += QStringLiteral(" [%1]").arg(hint.left(40));
    return text;
}

QString chain(const QWidget *w)
{
    QStringList parts{describe(w)};
    for (const QWidget *p = w->parentWidget(); p; p = p->isWindow() ? nullptr : p->parentWidget())
        parts.append(QString::fromLatin1(p->metaObject()->className()) +
                     (p->objectName().isEmpty() ? QString()
                                                : QStringLiteral(" \"%1\"").arg(p->objectName())));
    return parts.join(QStringLiteral(" < "));
}

bool meaningful(const QString &name)
{
    return std::any_of(name.cbegin(), name.cend(), [](QChar c) { return c.isLetterOrNumber(); });
}

// Parts of a compound control that the control itself speaks for: the line edit of a combo or
// spin box, the viewport of a scroll area.
bool isInnerPart(const QWidget *w)
{
    const QWidget *p = w->parentWidget();
    if (const auto *area = qobject_cast<const QAbstractScrollArea *>(p);
        area && area->viewport() == w)
        return true;
    return qobject_cast<const QComboBox *>(p) || qobject_cast<const QAbstractSpinBox *>(p);
}

bool isCellWidget(const QWidget *w)
{
    const QWidget *viewport = w->parentWidget();
    return viewport && qobject_cast<const QAbstractItemView *>(viewport->parentWidget());
}

// A widget with a focus proxy (a tab widget: its tab bar) hands the focus on; the proxy is
// checked instead.
bool takesFocus(const QWidget *w)
{
    return w->isVisible() && w->isEnabled() && (w->focusPolicy() & Qt::TabFocus) &&
           !w->focusProxy();
}

// The name a screen reader announces for `w`, or empty.
QString accessibleName(QWidget *w)
{
    QAccessibleInterface *iface = QAccessible::queryAccessibleInterface(w);
    if (!iface)
        return {};
    const QString name = iface->text(QAccessible::Name);
    const QString value = iface->text(QAccessible::Value);
    const bool combo = qobject_cast<QComboBox *>(w);
    if (meaningful(name) && (name != value || !combo))
        return name;
    const auto labels = iface->relations(QAccessible::Label);
    for (const auto &[label, relation] : labels)
        if (const QString text = label->text(QAccessible::Name); meaningful(text))
            return text;
    if (combo && meaningful(w->accessibleName()))
        return w->accessibleName();
    return {};
}

QString accessibleDescription(QWidget *w)
{
    QAccessibleInterface *iface = QAccessible::queryAccessibleInterface(w);
    return iface ? iface->text(QAccessible::Description) : QString();
}

} // namespace

Q_DECLARE_METATYPE(Factory)

class TestAccessibility : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void windows_data();
    void windows();

private:
    std::unique_ptr<QTemporaryDir> m_settingsDir;
    std::unique_ptr<QTemporaryDir> m_storeDir;
};

void TestAccessibility::initTestCase()
{
    QApplication::setOrganizationName(QStringLiteral("ClusterDeckTests"));
    QApplication::setApplicationName(QStringLiteral("tst_accessibility"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
}

void TestAccessibility::init()
{
    m_settingsDir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_settingsDir->isValid());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir->path());
    m_storeDir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_storeDir->isValid());
}

void TestAccessibility::cleanup()
{
    m_storeDir.reset();
    m_settingsDir.reset();
}

void TestAccessibility::windows_data()
{
    QTest::addColumn<bool>("withSession");
    QTest::addColumn<Factory>("make");

    // The console's views are tabs of the main window: one row per tab, since only the current
    // one is visible.
    const QStringList tabs{QStringLiteral("Sessions"),  QStringLiteral("Hosts"),
                           QStringLiteral("Templates"), QStringLiteral("Events"),
                           QStringLiteral("Images"),    QStringLiteral("Terminals"),
                           QStringLiteral("Dashboard")};
    for (int i = 0; i < tabs.size(); ++i)
        QTest::addRow("main window, %s", qPrintable(tabs.at(i)))
            << true << Factory([i](Env &env) -> QWidget * {
                   auto *window = new MainWindow(env.controller);
                   window->tabs()->setCurrentIndex(i);
                   return window;
               });
    QTest::newRow("main window, Terminals, one open") << true << Factory([](Env &env) -> QWidget * {
        auto *window = new MainWindow(env.controller);
        // No daemon: the terminal says it failed, which is enough to walk its tab.
        window->terminals()->openTerminal(
            []() -> Result<std::shared_ptr<const Docker::DockerClient>> {
                return fail(Error::Kind::Transport, QStringLiteral("test"),
                            QStringLiteral("no daemon"));
            },
            QStringLiteral("0000"), QStringLiteral("alpha/master1"));
        window->tabs()->setCurrentWidget(window->terminals());
        return window;
    });
    // A terminal in a window of its own: its Dock Back button and the terminal, one chain.
    QTest::newRow("terminal in its own window") << true << Factory([](Env &) -> QWidget * {
        auto *tabs = new TerminalTabs;
        tabs->openTerminal(
            []() -> Result<std::shared_ptr<const Docker::DockerClient>> {
                return fail(Error::Kind::Transport, QStringLiteral("test"),
                            QStringLiteral("no daemon"));
            },
            QStringLiteral("0000"), QStringLiteral("alpha/worker1"));
        DetachedWindow *away = tabs->detachTerminal(0);
        // The test deletes the window it is given; the tabs it came from go after it.
        QObject::connect(away, &QObject::destroyed, tabs, &QObject::deleteLater);
        return away;
    });
    QTest::newRow("main window, first run (no session, no host)")
        << false << Factory([](Env &env) -> QWidget * { return new MainWindow(env.controller); });
    QTest::newRow("Add Host dialog")
        << true << Factory([](Env &env) -> QWidget * { return new AddHostDialog(env.controller); });
    QTest::newRow("Multi-Host Networking dialog")
        << true << Factory([](Env &) -> QWidget * { return new NetworkSetupDialog; });
    for (const char *file : {"lab-basic.yaml", "pytorch-ddp.yaml"})
        QTest::addRow("Launch dialog, %s", file) << true << Factory([file](Env &env) -> QWidget * {
            auto *dialog = new LaunchDialog(env.controller);
            dialog->selectTemplate(sampleTemplate(QString::fromLatin1(file)));
            return dialog;
        });
    // The role's task has six pages (environment, mounts, ports, bootstrap, overrides, more);
    // pytorch-ddp has rows in the first three. tst_templateeditor pageTitles keeps the count.
    for (int page = 0; page < 6; ++page)
        QTest::addRow("template editor, task page %d", page)
            << true << Factory([page](Env &env) -> QWidget * {
                   auto *editor = templateEditor(env, QStringLiteral("pytorch-ddp.yaml"));
                   tabsWithPage(editor, QStringLiteral("Environment"))->setCurrentIndex(page);
                   return editor;
               });
    QTest::newRow("template editor, YAML") << true << Factory([](Env &env) -> QWidget * {
        auto *editor = templateEditor(env, QStringLiteral("lab-basic.yaml"));
        tabsWithPage(editor, QStringLiteral("YAML"))->setCurrentIndex(1);
        return editor;
    });
    QTest::newRow("Export dialog") << true << Factory([](Env &) -> QWidget * {
        TemplateLoader loader;
        auto t = loader.loadClusterFile(sampleTemplate(QStringLiteral("pytorch-ddp.yaml")));
        return t ? new ExportDialog(*t) : nullptr;
    });
    QTest::newRow("Run Command dialog") << true << Factory([](Env &env) -> QWidget * {
        return new RunCommandDialog(env.controller->registry(), QStringLiteral("alpha"),
                                    env.alpha.kernels);
    });
    QTest::newRow("Scale Role dialog") << true << Factory([](Env &) -> QWidget * {
        return new ScaleRoleDialog(QStringLiteral("alpha"), QStringLiteral("worker"), 2, 1, 8, {});
    });
}

void TestAccessibility::windows()
{
    QFETCH(bool, withSession);
    QFETCH(Factory, make);

    auto store = SqliteStore::open(m_storeDir->filePath(QStringLiteral("state.db")));
    QVERIFY(store);
    Env env;
    env.alpha = makeSession("11111111-aaaa-4000-8000-000000000001", "alpha",
                            {{"master", 1}, {"worker", 2}});
    if (withSession)
        QVERIFY((*store)->createSession(env.alpha.session, env.alpha.kernels).has_value());
    ConsoleController controller;
    controller.setHostRefreshInterval(0);
    controller.setCoalesceDelay(0);
    controller.setStore(std::unique_ptr<StateStore>(store->release()));
    controller.waitForIdle();
    env.controller = &controller;
    env.userTemplates = m_storeDir->filePath(QStringLiteral("templates"));
    QVERIFY(QDir().mkpath(env.userTemplates));

    std::unique_ptr<QWidget> window(make(env));
    window->show();
    QVERIFY(QTest::qWaitForWindowExposed(window.get()));
    QCoreApplication::processEvents();

    QStringList problems;
    const QList<QWidget *> widgets = window->findChildren<QWidget *>();

    // (a) "&" followed by a letter marks a mnemonic ("&&" is a literal ampersand).
    static const QRegularExpression mnemonic(QStringLiteral("(^|[^&])&[^&\\s]"));
    for (QWidget *w : widgets) {
        auto *label = qobject_cast<QLabel *>(w);
        if (!label || !label->isVisible() || label->buddy())
            continue;
        const bool rich =
            label->textFormat() == Qt::RichText ||
            (label->textFormat() == Qt::AutoText && Qt::mightBeRichText(label->text()));
        if (!rich && mnemonic.match(label->text()).hasMatch())
            problems.append(QStringLiteral("mnemonic without a buddy (the '&' shows): ") +
                            chain(label));
    }

    // (b) and (c)
    QList<QWidget *> controls;
    for (QWidget *w : widgets)
        if (takesFocus(w) && !isInnerPart(w))
            controls.append(w);
    QHash<QString, QList<QWidget *>> byName;
    for (QWidget *w : std::as_const(controls)) {
        const QString name = accessibleName(w);
        if (name.isEmpty())
            problems.append(QStringLiteral("no accessible name: ") + chain(w));
        else if (!isCellWidget(w)) // one per row: the row tells them apart
            byName[QStringLiteral("%1\n%2\n%3")
                       .arg(name)
                       .arg(int(QAccessible::queryAccessibleInterface(w)->role()))
                       .arg(accessibleDescription(w))]
                .append(w);
    }
    for (auto it = byName.cbegin(); it != byName.cend(); ++it) {
        if (it.value().size() < 2)
            continue;
        QStringList which;
        for (QWidget *w : it.value())
            which.append(chain(w));
        problems.append(QStringLiteral("same name \"%1\" and no description to tell apart: %2")
                            .arg(it.key().section(u'\n', 0, 0), which.join(QStringLiteral("; "))));
    }

    // (d) The chain holds every widget of the window, so once around takes at most that many
    // steps.
    if (!controls.isEmpty()) {
        QWidget *start = controls.first();
        QSet<QWidget *> seen{start};
        QWidget *w = start;
        const qsizetype limit = widgets.size() + 2;
        qsizetype steps = 0;
        do {
            w = w->nextInFocusChain();
            seen.insert(w);
        } while (w != start && ++steps <= limit);
        if (w != start)
            problems.append(QStringLiteral("focus chain from %1 does not come back within %2 "
                                           "steps")
                                .arg(chain(start))
                                .arg(limit));
        for (QWidget *c : std::as_const(controls))
            if (!seen.contains(c))
                problems.append(QStringLiteral("not in the focus chain: ") + chain(c));
    }

    // QtTest cuts a failure message at 1 KiB: every problem goes to the log first.
    for (const QString &p : std::as_const(problems))
        qWarning().noquote() << p;
    qInfo("%d control(s) checked", int(controls.size()));
    QVERIFY2(problems.isEmpty(), qPrintable(QStringLiteral("%1 problem(s), first: %2")
                                                .arg(problems.size())
                                                .arg(problems.value(0))));
}

QTEST_MAIN(TestAccessibility)
#include "tst_accessibility.moc"
