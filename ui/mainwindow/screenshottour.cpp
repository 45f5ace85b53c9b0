#include "screenshottour.h"

#include "common/datapaths.h"
#include "console/consolecontroller.h"
#include "launch/launchdialog.h"
#include "mainwindow.h"
#include "models/sessionfilterproxymodel.h"
#include "models/sessiontreemodel.h"
#include "sessions/logspanel.h"
#include "sessions/sessionsview.h"
#include "style/apptheme.h"
#include "templates/exportdialog.h"
#include "templates/roletable.h"
#include "templates/roletaskeditor.h"
#include "templates/templateeditor.h"
#include "widgets/detachedwindow.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QPixmap>
#include <QProgressBar>
#include <QScreen>
#include <QSpinBox>
#include <QTabWidget>
#include <QTimer>
#include <QTreeView>

Q_LOGGING_CATEGORY(lcScreenshots, "clusterdeck.ui.screenshots")

namespace ClusterDeck::Ui {

namespace {
void settle(int msec)
{
    QEventLoop loop;
    QTimer::singleShot(msec, &loop, &QEventLoop::quit);
    loop.exec();
}
} // namespace

ScreenshotTour::ScreenshotTour(MainWindow *window, const QString &directory, QObject *parent)
    : QObject(parent)
    , m_window(window)
    , m_directory(directory)
{}

void ScreenshotTour::start()
{
    ConsoleController *c = m_window->controller();
    connect(c, &ConsoleController::sessionsLoaded, this, [this, c] {
        m_sessionsLoaded = true;
        // A store with no host and no session: the first-run view is all there is to show.
        if (c->hosts().isEmpty() && c->sessionModel()->rowCount() == 0) {
            QTimer::singleShot(1500, this, &ScreenshotTour::run);
            return;
        }
        if (m_hostsLoaded)
            QTimer::singleShot(1500, this, &ScreenshotTour::run);
    });
    connect(c, &ConsoleController::hostStatusesChanged, this, [this] {
        m_hostsLoaded = true;
        if (m_sessionsLoaded)
            QTimer::singleShot(1500, this, &ScreenshotTour::run);
    });
    QTimer::singleShot(30000, this, &ScreenshotTour::run); // whatever has loaded by then
}

bool ScreenshotTour::save(QWidget *widget, const QString &name)
{
    const QString path = QDir(m_directory).filePath(name);
    const bool ok = widget->grab().save(path);
    qCInfo(lcScreenshots) << (ok ? "saved" : "could not save") << path;
    return ok;
}

void ScreenshotTour::run()
{
    if (m_done)
        return;
    m_done = true;
    QDir().mkpath(m_directory);
    m_window->resize(1500, 860);
    SessionsView *sessions = m_window->sessionsView();
    QTabWidget *tabs = m_window->tabs();
    if (m_window->controller()->hosts().isEmpty() &&
        m_window->controller()->sessionModel()->rowCount() == 0) {
        tabs->setCurrentIndex(0);
        settle(300);
        save(m_window, QStringLiteral("first-run.png"));
        QApplication::quit();
        return;
    }

    tabs->setCurrentIndex(0);
    sessions->tree()->expandAll();
    SessionTreeModel *model = m_window->controller()->sessionModel();
    if (model->rowCount() > 0) {
        const QString sessionId = model->index(0, 0).data(SessionTreeModel::IdRole).toString();
        sessions->selectSession(sessionId);
        sessions->showLogsOfCurrent();
        // A member kernel selected, as an admin would have it.
        const QModelIndex session = model->index(0, 0);
        if (model->rowCount(session) > 1) {
            const QModelIndex kernel = model->index(0, 0, model->index(1, 0, session));
            sessions->tree()->setCurrentIndex(sessions->proxy()->mapFromSource(kernel));
        }
    }
    settle(2500); // port probes answer, logs arrive
    save(m_window, QStringLiteral("sessions.png"));

    tabs->setCurrentIndex(1);
    settle(300);
    save(m_window, QStringLiteral("hosts.png"));

    tabs->setCurrentIndex(2);
    settle(300);
    save(m_window, QStringLiteral("template-editor.png"));
    // The role's less common fields and its host labels (the task editor's More page).
    if (QTabWidget *sections = m_window->templateEditor()->taskEditor()->sections()) {
        const int shown = sections->currentIndex();
        sections->setCurrentIndex(sections->count() - 1);
        settle(300);
        save(m_window, QStringLiteral("template-editor-more.png"));
        sections->setCurrentIndex(shown);
    }
    // Export… of the template the editor shows, as a JobSet.
    if (ExportDialog *exported = m_window->templateEditor()->exportDialog()) {
        exported->show();
        settle(300);
        save(exported, QStringLiteral("export-dialog.png"));
        exported->close();
    }
    // A role's overrides: the spark sample's worker takes its task from a shared file and
    // overrides two variables.
    TemplateEditor *editor = m_window->templateEditor();
    for (const QString &dir : sampleTemplateDirectories()) {
        const QString spark = QDir(dir).filePath(QStringLiteral("spark.yaml"));
        if (!QFileInfo::exists(spark) || !editor->openFile(spark))
            continue;
        editor->rolesTable()->setCurrentCell(1, TemplateEditor::RoleName);
        QTabWidget *sections = editor->taskEditor()->sections();
        for (int i = 0; i < sections->count(); ++i)
            if (sections->tabText(i) == tr("Overrides"))
                sections->setCurrentIndex(i);
        settle(300);
        save(m_window, QStringLiteral("template-editor-overrides.png"));
        break;
    }

    tabs->setCurrentIndex(3);
    settle(300);
    save(m_window, QStringLiteral("events.png"));

    tabs->setCurrentIndex(0);
    auto *dialog = new LaunchDialog(m_window->controller(), m_window);
    dialog->selectTemplate(QStringLiteral("lab-basic"));
    if (QSpinBox *workers = dialog->countBox(QStringLiteral("worker")))
        workers->setValue(5);
    dialog->show();
    settle(500);
    save(dialog, QStringLiteral("launch-dialog.png"));
    dialog->close();

    tabs->setCurrentIndex(4); // Images: lists every host's images when shown
    settle(2500);
    save(m_window, QStringLiteral("images.png"));
    tabs->setCurrentIndex(0);

    // Side by side: the session tree, and the session's dashboard in a window of its own
    // (View ▸ Dashboard in Own Window). The picture is of the screen, both windows on it.
    if (model->rowCount() > 0) {
        const QRect screen = m_window->screen()->geometry();
        const QRect before = m_window->geometry();
        sessions->selectSession(model->index(0, 0).data(SessionTreeModel::IdRole).toString());
        sessions->dashboardAction()->trigger();
        DetachedWindow *dashboard = m_window->detachDashboard();
        m_window->setGeometry(0, 0, std::max(m_window->minimumSizeHint().width(), 1180),
                              screen.height() - 80);
        dashboard->setGeometry(m_window->geometry().right() + 12, 0,
                               screen.width() - m_window->geometry().right() - 12,
                               screen.height() - 80);
        settle(6000); // a few samples on the charts
        const bool ok = m_window->screen()
                            ->grabWindow(0, 0, 0, screen.width(), screen.height() - 80)
                            .save(QDir(m_directory).filePath(QStringLiteral("two-windows.png")));
        qCInfo(lcScreenshots) << (ok ? "saved" : "could not save") << "two-windows.png";
        dashboard->dockBack();
        m_window->setGeometry(before);
        tabs->setCurrentIndex(0);
        settle(300);
    }

    // The same sessions view in the dark palette (View ▸ Theme ▸ Dark, or a dark desktop).
    const AppTheme::Choice theme = AppTheme::current();
    AppTheme::apply(AppTheme::Choice::Dark);
    settle(800);
    save(m_window, QStringLiteral("sessions-dark.png"));
    AppTheme::apply(theme);
    settle(300);

    // A launch that pulls an image on three hosts (scripts/screenshots.sh writes a template
    // naming the lab registry's registry-only tag): caught mid-pull, then cancelled.
    const QString pullTemplate = qEnvironmentVariable("CLUSTERDECK_SCREENSHOT_PULL_TEMPLATE");
    if (!pullTemplate.isEmpty()) {
        auto *pulling = new LaunchDialog(m_window->controller(), m_window);
        pulling->addTemplateFile(pullTemplate);
        pulling->selectTemplate(pullTemplate);
        pulling->show();
        settle(500);
        pulling->launch();
        // Until every host's bar moves (or 60 s), then the picture.
        for (int i = 0; i < 600; ++i) {
            settle(100);
            QProgressBar *total = pulling->pullTotalBar();
            int moving = 0;
            for (const QString &h : {QStringLiteral("h1"), QStringLiteral("h2"), QStringLiteral("h3")}) {
                if (QProgressBar *b = pulling->pullBar(h); b && b->value() > 100)
                    ++moving;
            }
            if ((moving == 3 && total->value() > 250) || !pulling->isLaunching())
                break;
        }
        save(pulling, QStringLiteral("launch-pulling.png"));
        pulling->cancelLaunch();
        for (int i = 0; i < 600 && pulling->isLaunching(); ++i)
            settle(100);
        pulling->close();
    }
    QApplication::quit();
}

} // namespace ClusterDeck::Ui
