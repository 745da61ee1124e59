import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController, RedisHealthIndicator, WorkersHealthIndicator } from './health.controller';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { IdentityModule } from '../identity/identity.module';

@Module({
  imports: [TerminusModule.forRoot({ logger: false }), IdentityModule],
  controllers: [HealthController, MetricsController],
  providers: [RedisHealthIndicator, WorkersHealthIndicator, MetricsService],
  exports: [MetricsService],
})
export class OpsModule {}
