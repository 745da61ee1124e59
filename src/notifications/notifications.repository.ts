import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { NotificationEntity } from './notification.entity';

/** The notifications table's one writer. */
@Injectable()
export class NotificationsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * One notification for each user, in one statement whatever their number; then each user's list is cut to the
   * newest `keep`, also in one statement, so a flood of messages cannot grow anyone's list without bound.
   */
  async deliver(userIds: string[], type: string, data: Record<string, unknown>, keep: number): Promise<void> {
    if (!userIds.length) return;
    await this.db.transaction(async (m) => {
      await m.query(
        `INSERT INTO notifications (id, user_id, type, data)
         SELECT replace(gen_random_uuid()::text, '-', ''), u, $2, $3::jsonb FROM unnest($1::text[]) AS u`,
        [userIds, type, JSON.stringify(data)],
      );
      await m.query(
        `DELETE FROM notifications n USING (
           SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY user_id ORDER BY created DESC, id DESC) AS rn
                             FROM notifications WHERE user_id = ANY ($1::text[])) ranked
            WHERE rn > $2) old
          WHERE n.id = old.id`,
        [userIds, keep],
      );
    });
  }

  /** One page of the user's notifications, newest first, and how many they have. */
  async list(userId: string, start: number, num: number): Promise<{ total: number; rows: NotificationEntity[] }> {
    const [rows, total] = await this.db
      .getRepository(NotificationEntity)
      .findAndCount({ where: { userId }, order: { created: 'DESC', id: 'DESC' }, skip: start - 1, take: num });
    return { total, rows };
  }

  find(userId: string, id: string): Promise<NotificationEntity | null> {
    return this.db.getRepository(NotificationEntity).findOneBy({ userId, id });
  }

  /** Whether the user had that notification (it is gone either way). */
  async remove(userId: string, id: string): Promise<boolean> {
    const result = await this.db.getRepository(NotificationEntity).delete({ userId, id });
    return (result.affected ?? 0) > 0;
  }
}
