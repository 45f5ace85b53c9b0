#include "models/imagesmodel.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace ClusterDeck;
using namespace ClusterDeck::Ui;

using OciLabels = QMap<QString, QString>; // QFETCH takes no comma

// The Images view's model shows an image's OCI labels: a Version column and a tooltip with its
// title, version, source and revision (issue 27, item 3).
class TestImagesModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ociColumnAndTooltip_data();
    void ociColumnAndTooltip();
};

void TestImagesModel::ociColumnAndTooltip_data()
{
    QTest::addColumn<OciLabels>("oci");
    QTest::addColumn<QString>("version");     // the Version cell
    QTest::addColumn<QStringList>("tooltip"); // lines of the image cell's tooltip; none: no tooltip
    QTest::newRow("none") << OciLabels{} << QString() << QStringList{};
    QTest::newRow("all four") << OciLabels{{"title", "Trainer"},
                                           {"version", "2.1.0"},
                                           {"source", "https://git.example/t"},
                                           {"revision", "0123abcd"}}
                              << "2.1.0"
                              << QStringList{"train:2", "Title: Trainer", "Version: 2.1.0",
                                             "Source: https://git.example/t", "Revision: 0123abcd"};
    QTest::newRow("source only") << OciLabels{{"source", "https://git.example/t"}} << QString()
                                 << QStringList{"train:2", "Source: https://git.example/t"};
}

void TestImagesModel::ociColumnAndTooltip()
{
    QFETCH(OciLabels, oci);
    QFETCH(QString, version);
    QFETCH(QStringList, tooltip);
    ImagesModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    Registry::ImageInventory inv;
    inv.hosts = {"h1"};
    Registry::ImageRow row;
    row.reference = "train:2";
    row.hosts.insert("h1", {"sha256:aaa", 1000, 0, 0});
    row.oci = oci;
    inv.rows = {row};
    model.setInventory(inv);
    QCOMPARE(model.columnCount(), int(ImagesModel::FirstHostColumn) + 1);
    QCOMPARE(model.headerData(ImagesModel::VersionColumn, Qt::Horizontal).toString(),
             QStringLiteral("Version"));
    QCOMPARE(model.headerData(ImagesModel::FirstHostColumn, Qt::Horizontal).toString(),
             QStringLiteral("h1"));
    const QModelIndex image = model.index(0, ImagesModel::ImageColumn);
    const QModelIndex versionCell = model.index(0, ImagesModel::VersionColumn);
    QCOMPARE(image.data().toString(), QStringLiteral("train:2"));
    QCOMPARE(versionCell.data().toString(), version);
    const QVariant tip = image.data(Qt::ToolTipRole);
    QCOMPARE(tip.isValid(), !tooltip.isEmpty());
    if (!tooltip.isEmpty()) {
        QCOMPARE(tip.toString().split(u'\n'), tooltip);
        // The version cell's tooltip: the same lines without the reference.
        QCOMPARE(versionCell.data(Qt::ToolTipRole).toString().split(u'\n'), tooltip.mid(1));
    } else {
        QVERIFY(versionCell.data(Qt::ToolTipRole).toString().contains("no org.opencontainers"));
    }
    // The oci labels change in place: one row's dataChanged, no reset.
    Registry::ImageInventory next = inv;
    next.rows[0].oci.insert("version", "9");
    model.setInventory(next);
    QCOMPARE(versionCell.data().toString(), QStringLiteral("9"));
}

QTEST_MAIN(TestImagesModel)
#include "tst_imagesmodel.moc"
