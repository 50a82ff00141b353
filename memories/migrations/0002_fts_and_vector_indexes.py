from django.db import migrations

from memories import sql


class Migration(migrations.Migration):
    dependencies = [("memories", "0001_initial")]

    operations = [
        migrations.RunSQL(sql=sql.LEGACY_CREATE_ALL, reverse_sql=sql.LEGACY_DROP_ALL),
    ]
