#include "registry/imageinventory.h"
#include "registry/imageinventoryjson.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace ClusterDeck;
using namespace ClusterDeck::Registry;

// The host × image inventory and its `image ls --json` form, with the images' OCI labels
// (issue 27, item 3).
class TestImageInventory : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ociLabels_data();
    void ociLabels();
    void jsonShape();
};

namespace {

Docker::ImageSummary image(const QString &id, const QString &tag, const Docker::Labels &labels)
{
    Docker::ImageSummary s;
    s.id = id;
    s.repoTags = {tag};
    s.size = 1000;
    s.created = 1700000000;
    s.labels = labels;
    return s;
}

QString oci(const QString &key)
{
    return QStringLiteral("org.opencontainers.image.") + key;
}

} // namespace

void TestImageInventory::ociLabels_data()
{
    QTest::addColumn<Docker::Labels>("labels");
    QTest::addColumn<QJsonObject>("expected"); // the row's "oci"; empty: no "oci" key at all
    QTest::newRow("none") << Docker::Labels{{"maintainer", "me"}} << QJsonObject{};
    QTest::newRow("all four") << Docker::Labels{{oci("title"), "Trainer"},
                                                {oci("version"), "2.1.0"},
                                                {oci("source"), "https://git.example/trainer"},
                                                {oci("revision"), "0123abcd"}}
                              << QJsonObject{{"title", "Trainer"},
                                             {"version", "2.1.0"},
                                             {"source", "https://git.example/trainer"},
                                             {"revision", "0123abcd"}};
    QTest::newRow("only some, others ignored")
        << Docker::Labels{{oci("version"), "24.04"},
                          {oci("ref.name"), "ubuntu"},
                          {oci("description"), "base"},
                          {"io.clusterdeck.service-ports", "ssh:tcp:22"}}
        << QJsonObject{{"version", "24.04"}};
    QTest::newRow("empty values left out")
        << Docker::Labels{{oci("title"), ""}, {oci("revision"), "abc"}}
        << QJsonObject{{"revision", "abc"}};
}

void TestImageInventory::ociLabels()
{
    QFETCH(Docker::Labels, labels);
    QFETCH(QJsonObject, expected);
    const ImageInventory inv =
        ImageInventory::fromListings({"h1", "h2"},
                                     {{"h1", {image("sha256:aaa", "train:2", labels)}},
                                      {"h2", {image("sha256:aaa", "train:2", labels)}}},
                                     {});
    QCOMPARE(inv.rows.size(), 1);
    QCOMPARE(inv.rows.first().oci.size(), expected.size());
    const QJsonObject row = imageInventoryToJson(inv).value("images").toArray().first().toObject();
    QCOMPARE(row.contains("oci"), !expected.isEmpty());
    QCOMPARE(row.value("oci").toObject(), expected);
}

// The keys scripts read stay where they were; "oci" is added beside them.
void TestImageInventory::jsonShape()
{
    const ImageInventory inv = ImageInventory::fromListings(
        {"h1", "h2"},
        {{"h1", {image("sha256:aaa", "train:2", {{oci("version"), "2"}})}},
         {"h2", {image("sha256:bbb", "other:1", {})}}},
        {});
    ImageInventory withError = inv;
    withError.errors.insert("h3", "no answer");
    const QJsonObject o = imageInventoryToJson(withError);
    QCOMPARE(o.keys(), (QStringList{"errors", "hosts", "images"}));
    QCOMPARE(o.value("hosts").toArray(), QJsonArray({"h1", "h2"}));
    QCOMPARE(o.value("errors").toObject(), QJsonObject({{"h3", "no answer"}}));
    const QJsonArray images = o.value("images").toArray();
    QCOMPARE(images.size(), 2);
    const QJsonObject other = images.at(0).toObject();
    const QJsonObject train = images.at(1).toObject();
    QCOMPARE(other.keys(), (QStringList{"digest", "hosts", "image", "size"}));
    QCOMPARE(train.keys(), (QStringList{"digest", "hosts", "image", "oci", "size"}));
    QCOMPARE(train.value("image").toString(), QStringLiteral("train:2"));
    QCOMPARE(train.value("oci").toObject(), QJsonObject({{"version", "2"}}));
    const QJsonObject h1 = train.value("hosts").toObject().value("h1").toObject();
    QCOMPARE(h1.keys(), (QStringList{"containers", "created", "id", "size"}));
    QCOMPARE(h1.value("id").toString(), QStringLiteral("sha256:aaa"));
}

QTEST_GUILESS_MAIN(TestImageInventory)
#include "tst_imageinventory.moc"
