#include "common/logging.h"
#include "common/version.h"
#include "console/consolecontroller.h"
#include "hosts/localdockeroffer.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/screenshottour.h"
#include "mainwindow/windowmanager.h"
#include "style/apptheme.h"
#include "style/themeicon.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>

#include <cstdio>

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("clusterdeck"));
    QApplication::setApplicationDisplayName(QStringLiteral("ClusterDeck"));
    QApplication::setApplicationVersion(ClusterDeck::versionString());
    QApplication::setOrganizationName(QStringLiteral("ClusterDeck"));
    QApplication::setOrganizationDomain(QStringLiteral("clusterdeck.io"));
    // Like the CLI: warnings and errors on the terminal, the rest on request (Help > Diagnostics).
    ClusterDeck::Logging::apply(
        QSettings().value(QStringLiteral("diagnostics/verbose"), false).toBool()
            ? ClusterDeck::Logging::Level::Debug
            : ClusterDeck::Logging::Level::Warnings);

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("ClusterDeck desktop console"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption storeOption(
        QStringLiteral("store"),
        QStringLiteral("State store URL (default: $CLUSTERDECK_STORE, the config file, "
                       "then sqlite://$XDG_DATA_HOME/clusterdeck/state.db)."),
        QStringLiteral("URL"));
    // --no-reconcile is the older name of --no-controller.
    const QCommandLineOption noController(
        {QStringLiteral("no-controller"), QStringLiteral("no-reconcile")},
        QStringLiteral("Do not run the embedded controller (policies then wait for another "
                       "console or `clusterdeckctl controller`)."));
    const QCommandLineOption screenshots(
        QStringLiteral("screenshot-dir"),
        QStringLiteral("Save PNGs of each view into DIR, then quit (scripts/screenshots.sh)."),
        QStringLiteral("DIR"));
    const QCommandLineOption theme(
        QStringLiteral("theme"),
        QStringLiteral("system, light or dark for this run (View > Theme keeps a choice)."),
        QStringLiteral("THEME"));
    parser.addOptions({storeOption, noController, screenshots, theme});
    parser.process(app);

    using ClusterDeck::Ui::AppTheme;
    QApplication::setWindowIcon(ClusterDeck::Ui::themeIcon(QStringLiteral("clusterdeck")));
    auto choice = AppTheme::savedChoice();
    if (parser.isSet(theme)) {
        const auto asked = AppTheme::fromString(parser.value(theme));
        if (!asked) {
            std::fputs("error: --theme takes system, light or dark\n", stderr);
            return 2;
        }
        choice = *asked;
    }
    AppTheme::apply(choice);

    // The windows of the last run on their stores, or one on --store; File > New Window adds more.
    ClusterDeck::Ui::WindowManager windows;
    windows.setEmbeddedControllerEnabled(!parser.isSet(noController));
    const QList<ClusterDeck::Ui::MainWindow *> opened =
        windows.restoreWindows(parser.value(storeOption));
    ClusterDeck::Ui::MainWindow &window = *opened.first();
    if (!parser.isSet(screenshots)) // owned by the controller
        new ClusterDeck::Ui::LocalDockerOffer(window.controller(), &window);
    for (ClusterDeck::Ui::MainWindow *w : opened)
        w->show();
    ClusterDeck::Ui::ScreenshotTour tour(&window, parser.value(screenshots));
    if (parser.isSet(screenshots))
        tour.start();
    return QApplication::exec();
}
