#include "common/version.h"
#include "console/consolecontroller.h"
#include "hosts/localdockeroffer.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/screenshottour.h"

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("clusterdeck"));
    QApplication::setApplicationDisplayName(QStringLiteral("ClusterDeck"));
    QApplication::setApplicationVersion(ClusterDeck::versionString());
    QApplication::setOrganizationName(QStringLiteral("ClusterDeck"));
    QApplication::setOrganizationDomain(QStringLiteral("clusterdeck.io"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("ClusterDeck desktop console"));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption storeOption(
        QStringLiteral("store"),
        QStringLiteral("State store URL (default: $CLUSTERDECK_STORE, the config file, "
                       "then sqlite://$XDG_DATA_HOME/clusterdeck/state.db)."),
        QStringLiteral("URL"));
    const QCommandLineOption noReconcile(QStringLiteral("no-reconcile"),
                                         QStringLiteral("Do not reconcile the hosts at start."));
    const QCommandLineOption screenshots(
        QStringLiteral("screenshot-dir"),
        QStringLiteral("Save PNGs of each view into DIR, then quit (scripts/screenshots.sh)."),
        QStringLiteral("DIR"));
    parser.addOptions({storeOption, noReconcile, screenshots});
    parser.process(app);

    ClusterDeck::Ui::ConsoleController controller;
    ClusterDeck::Ui::MainWindow window(&controller);
    if (!parser.isSet(noReconcile))
        QObject::connect(&controller, &ClusterDeck::Ui::ConsoleController::storeOpened, &controller,
                         &ClusterDeck::Ui::ConsoleController::reconcile, Qt::SingleShotConnection);
    if (!parser.isSet(screenshots))
        new ClusterDeck::Ui::LocalDockerOffer(&controller, &window); // owned by the controller
    controller.openStore(parser.value(storeOption)); // in the background; the window shows now
    window.show();
    ClusterDeck::Ui::ScreenshotTour tour(&window, parser.value(screenshots));
    if (parser.isSet(screenshots))
        tour.start();
    return QApplication::exec();
}
